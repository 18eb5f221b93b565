// GPU Node Lab loader, public API v1: <gpu-lab> and window.GpuLab (.v1; .mount and
// .version are the same v1). Options, attributes, events and the stability policy
// (v1 only grows; a breaking change is v2): docs/embedding.md.

// The bundle's asset names (the only lines a build step may rewrite).
const WASM_JS = "gpu-node-lab-0.1.0.js";
const WASM_BG = "gpu-node-lab-0.1.0_bg.wasm";
const WASM_EN = "gpu-node-lab-0.1.0-en.ftl";

const EVENTS = Object.freeze({ state: "gpulab:statechange", error: "gpulab:error", resize: "gpulab:resize" });
// Internal: the lab asks for a language whose messages the page has not fetched yet.
const LANG = "gpulab:lang";

let bindings;
// Where the bundle's files are (the first mount decides) and the URL of the glue of
// the module instance labs run on (`?restart=N` after a trap).
let base;
let glue;
function loadBindings(assetsBase) {
  if (!bindings) {
    base ??= assetsBase ? new URL(assetsBase, document.baseURI) : new URL("./", import.meta.url);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    glue = new URL(WASM_JS + (restarts ? `?restart=${restarts}` : ""), base).href;
    bindings = window.wasmBindings && !restarts
      ? Promise.resolve(window.wasmBindings)
      : (async () => {
          const module = await import(glue);
          await module.default({ module_or_path: new URL(WASM_BG, base) });
          return module;
        })();
    bindings.catch(() => { bindings = undefined; });
  }
  return bindings;
}

// A trap in the module (a panic aborts into one; a stack overflow is one) leaves
// that instance unusable: its borrows and stack are wherever the trap left them.
// The labs on it are mounted again on a fresh instance, each told which step it was
// showing (`trapped`), so the learner can discard that step's saved input without
// touching the rest (issue 20). Traps in the on-demand chunk do not come here: the
// lab catches them and loads a fresh chunk. At most 3 restarts per page; then the
// error is shown as any other.
const labs = new Set();
let restarts = 0;
let restarting = null;
function onTrap(error) {
  if (!(error instanceof WebAssembly.RuntimeError) || restarting || !labs.size) return;
  // A replaced instance may still run a listener it left on window and trap again:
  // its glue URL is in the stack, and not the current one.
  const stack = String(error.stack ?? "");
  if (/gpu-node-lab-[^/]*\.js/.test(stack) && !stack.includes(`${glue}:`)) return;
  restarting = restart(error).finally(() => { restarting = null; });
}
addEventListener("error", (e) => onTrap(e.error));
addEventListener("unhandledrejection", (e) => onTrap(e.reason));

async function restart(error) {
  const trapped = [...labs];
  for (const lab of trapped) lab.stop();
  if (++restarts > 3) {
    for (const lab of trapped) report(lab.root, new Error(`gpu-lab: the lab stopped on an internal error (${error.message}); reload the page`));
    return;
  }
  bindings = undefined;
  const wasm = await loadBindings();
  for (const lab of trapped) {
    try {
      await lab.restart(wasm, error.message);
    } catch (e) {
      report(lab.root, e);
    }
  }
}

// English is a file beside the wasm (Korean is built in), handed to the lab before it
// mounts or switches to English, so the lab never shows one language and then the
// other. Each module instance gets it once (a restarted one too).
let englishText;
const hasEnglish = new WeakSet();
const needsEnglish = (wasm, lang) => typeof lang === "string" && /^en([-_]|$)/i.test(lang) && !hasEnglish.has(wasm);
async function loadLang(wasm, lang) {
  if (!needsEnglish(wasm, lang)) return;
  englishText ??= fetchText(new URL(WASM_EN, base));
  let text;
  try {
    text = await englishText;
  } catch (error) {
    englishText = undefined;
    throw new Error(`gpu-lab: cannot load the English messages ${WASM_EN}: ${error.message ?? error}`);
  }
  if (!wasm.provideEnglish(text)) throw new Error(`gpu-lab: ${WASM_EN} is not the file this lab was built with`);
  hasEnglish.add(wasm);
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

// scenarioSrc → its text and files (fetched next to it; a missing one is reported by
// the lab at the line naming it).
// The model's scenario parser is in the lab's on-demand module, loaded first.
async function loadChunk(wasm) {
  try {
    await wasm.loadChunk();
  } catch (error) {
    throw new Error(`gpu-lab: cannot load the lab's second module, which reads scenarios: ${error.message ?? error}`);
  }
}

async function resolveScenario(wasm, options) {
  const { scenarioSrc, ...rest } = options;
  if (scenarioSrc == null) {
    if (rest.scenario != null) await loadChunk(wasm);
    return rest;
  }
  if (typeof scenarioSrc !== "string") throw new TypeError("gpu-lab: option scenarioSrc must be a string (a URL)");
  if (rest.scenario != null) throw new TypeError("gpu-lab: give scenario (inline TOML) or scenarioSrc (a URL), not both");
  const url = new URL(scenarioSrc, document.baseURI);
  if (url.origin !== location.origin) {
    throw new Error(`gpu-lab: scenario ${scenarioSrc} is not on this host (${location.origin}): serve it next to the page`);
  }
  let text;
  try {
    text = await fetchText(url);
  } catch (error) {
    throw new Error(`gpu-lab: cannot load scenario ${scenarioSrc}: ${error.message ?? error}`);
  }
  const files = { ...(rest.scenarioFiles ?? {}) };
  await loadChunk(wasm);
  await Promise.all(
    Array.from(wasm.scenarioReferences(text))
      .filter((path) => !(path in files))
      .map(async (path) => {
        try {
          files[path] = await fetchText(new URL(path, url));
        } catch {
          /* reported by the lab at the referencing line */
        }
      }),
  );
  return { ...rest, scenario: text, scenarioFile: rest.scenarioFile ?? scenarioSrc, scenarioFiles: files };
}

// Shows the error in the root (unless the lab did) and dispatches gpulab:error.
function report(root, error) {
  if (!root.querySelector(".gpu-lab-error")) {
    const box = document.createElement("div");
    box.className = "gpu-lab gpu-lab-error";
    box.setAttribute("role", "alert");
    const p = document.createElement("p");
    p.className = "error-title";
    p.textContent = String(error?.message ?? error);
    box.append(p);
    root.replaceChildren(box);
  }
  const detail = { message: String(error?.message ?? error), diagnostics: Array.from(error?.diagnostics ?? []) };
  root.dispatchEvent(new CustomEvent(EVENTS.error, { bubbles: true, detail }));
}

/** A mounted lab (v1): update(options), state(), destroy(), root. */
class LabHandle {
  #inner;
  #resize;
  #host;
  #options;
  #state;
  #onState;
  #onLang;
  #wasm;
  // `host`: the element inside `root` the module renders into (a new one after a
  // restart, so listeners the trapped instance left on the old one go with it).
  constructor(inner, root, host, options, wasm) {
    this.#inner = inner;
    this.root = root;
    this.#host = host;
    this.#options = options;
    this.#wasm = wasm;
    this.#onState = (e) => { this.#state = e.detail; };
    this.#onLang = (e) => { if (e.target === this.#host) this.#lang(e.detail); };
    root.addEventListener(EVENTS.state, this.#onState);
    root.addEventListener(LANG, this.#onLang);
    labs.add(this);
    let last = "";
    this.#resize = new ResizeObserver(() => {
      const width = Math.round(root.offsetWidth);
      const height = Math.round(root.scrollHeight);
      if (`${width}x${height}` === last || height === 0) return;
      last = `${width}x${height}`;
      root.dispatchEvent(new CustomEvent(EVENTS.resize, { bubbles: true, detail: { width, height } }));
    });
    this.#resize.observe(root);
  }

  /** Applies { lang, step }; what is not given keeps its value. Throws on a bad value. */
  update(options = {}) {
    if (!this.#inner) throw new Error("gpu-lab: this lab was destroyed");
    if (!needsEnglish(this.#wasm, options?.lang)) return this.#inner.update(options);
    const { lang, ...rest } = options;
    this.#inner.update(rest);
    this.#lang(lang);
  }

  // A language whose messages are not here yet: fetched first, then applied.
  #lang(lang) {
    loadLang(this.#wasm, lang).then(() => this.#inner?.update({ lang }), (error) => console.error(error));
  }

  /** { lang, step } and, for a lab started from an author scenario, scenario (its title). */
  state() {
    if (!this.#inner) throw new Error("gpu-lab: this lab was destroyed");
    return this.#inner.state();
  }

  /** Unmounts the lab (its root is empty by the next task). Harmless twice. */
  destroy() {
    this.#resize.disconnect();
    this.root.removeEventListener(EVENTS.state, this.#onState);
    this.root.removeEventListener(LANG, this.#onLang);
    labs.delete(this);
    this.#inner?.destroy();
    this.#inner?.free?.();
    this.#inner = undefined;
    this.#host.remove();
  }

  // The module trapped: the old instance is never called again, and its lab never
  // saves again (storage.rs reads the mark).
  stop() {
    this.#host.setAttribute("data-gpulab-dead", "");
    this.#inner = undefined;
  }

  // Mounts the lab again on a fresh instance, where it was (language, step).
  async restart(wasm, message) {
    const details = this.#host.querySelector(".lab-panic")?.dataset.details ?? message;
    const { lang, step } = this.#state ?? this.#options;
    if (this.#options.scenario != null) await loadChunk(wasm);
    await loadLang(wasm, lang);
    this.#wasm = wasm;
    this.#host = newHost(this.root);
    this.#inner = wasm.mount(this.#host, { ...this.#options, lang, step, trapped: { step: step ?? 1, details } });
  }
}

/** Mounts a lab into `root`; resolves to its LabHandle (docs/embedding.md). */
export async function mount(root, options = {}) {
  if (!(root instanceof Element)) throw new TypeError("gpu-lab: mount(root, options): root must be an element");
  try {
    if (options === null || typeof options !== "object") throw new TypeError("gpu-lab: options must be an object");
    const wasm = await loadBindings(options.assetsBase);
    const { assetsBase, ...rest } = options;
    await loadLang(wasm, rest.lang);
    const resolved = await resolveScenario(wasm, rest);
    const host = newHost(root);
    return new LabHandle(wasm.mount(host, resolved), root, host, resolved, wasm);
  } catch (error) {
    report(root, error);
    throw error;
  }
}

// The element a lab renders into, inside the host's root.
function newHost(root) {
  const host = document.createElement("div");
  host.className = "gpu-lab-host";
  root.replaceChildren(host);
  return host;
}

function optionsOf(element) {
  const options = {};
  const lang = element.getAttribute("lang");
  if (lang) options.lang = lang;
  const step = element.getAttribute("step");
  if (step !== null && step !== "") options.step = Number(step);
  const src = element.getAttribute("scenario-src");
  if (src) options.scenarioSrc = src;
  const base = element.getAttribute("assets-base");
  if (base) options.assetsBase = base;
  const key = element.getAttribute("storage-key");
  if (key) options.storageKey = key;
  return options;
}

class GpuLabElement extends HTMLElement {
  static observedAttributes = ["lang", "step", "scenario-src"];
  #generation = 0;
  #src = null;

  /** The element's LabHandle once mounted (undefined before, or after an error). */
  get lab() {
    return this.handle;
  }

  async connectedCallback() {
    if (this.handle || this.mounting) return;
    const generation = ++this.#generation;
    this.mounting = true;
    this.#src = this.getAttribute("scenario-src");
    this.removeAttribute("data-error");
    try {
      const handle = await mount(this, optionsOf(this));
      if (generation !== this.#generation) handle.destroy();
      else this.handle = handle;
    } catch (error) {
      // Shown in the element by mount(); the attribute lets page styles react.
      if (generation === this.#generation) this.setAttribute("data-error", "");
      console.error(error);
    } finally {
      if (generation === this.#generation) this.mounting = false;
    }
  }

  disconnectedCallback() {
    this.#generation++;
    this.mounting = false;
    this.handle?.destroy();
    this.handle = undefined;
  }

  attributeChangedCallback(name) {
    if (!this.isConnected) return;
    if (name === "scenario-src" && this.getAttribute("scenario-src") !== this.#src) {
      // Another scenario is another lab.
      this.disconnectedCallback();
      this.connectedCallback();
      return;
    }
    try {
      this.handle?.update(optionsOf(this));
    } catch (error) {
      console.error(error);
    }
  }
}

if (!customElements.get("gpu-lab")) customElements.define("gpu-lab", GpuLabElement);

/** The v1 API. Frozen: v1 only grows, in new releases of this file. */
export const v1 = Object.freeze({ version: 1, mount, events: EVENTS });
if (!window.GpuLab?.v1) window.GpuLab = Object.freeze({ ...(window.GpuLab ?? {}), version: 1, mount, v1 });
