// The import panel of steps 6 and 8: the learner's own cluster (a kubectl dump picked,
// dropped or pasted) and the pod or DaemonSet to try on it. A custom element,
// <gpulab-import step="6|8" lang="ko|en">, defined when the chunk loads (the app's
// steps render the bare element, so the first load carries nothing of this); the
// model runs in a worker holding its own instance of the chunk, the dump read in
// slices with a progress bar and a cancel. Every text of the outcome is the model's
// (`import/mod.rs`); the words around it are `import/text.rs`'s. Nothing is stored:
// the dump lives in the worker and in this module's memory for the page's life.

const PAGE = 100; // table rows per page
const SLICE = 250; // dump pieces loaded between two progress reports

// The steps' state, per step (shared by every lab on the page): what was given, the
// worker and what it has read, the last outcome.
const STATE = { 6: null, 8: null };
let CHUNK = null; // { js, wasm, setup(lang) }

// The worker's job, run in the worker (its source is sent as text) or, where no
// worker can start, on the page between slices: reads the dump unless the worker
// has it already, then runs the model.
async function job(m, d, post, pause) {
  if (!d.reuse) {
    const text = typeof d.data === "string" ? d.data : await d.data.text();
    const total = m.import_open(d.name, text, d.step === "6");
    let done = 0;
    post({ progress: [done, total] });
    while (done < total) {
      done = m.import_read(d.slice);
      post({ progress: [done, total] });
      await pause();
    }
  }
  post({ running: true });
  const reply = d.step === "6" ? m.import_schedule(d.fileName, d.text, d.version, d.lang) : m.import_rollout(d.fileName, d.text, d.lang);
  post({ reply });
}

const WORKER_SRC = `const job = ${job.toString()};
let m = null;
onmessage = async (e) => {
  const d = e.data;
  try {
    if (!m) { const g = await import(d.js); await g.default({ module_or_path: d.wasm }); m = g; }
    await job(m, d, (x) => postMessage(x), () => undefined);
  } catch (err) { postMessage({ error: String(err && err.message || err) }); }
};`;

function state(step) {
  if (!STATE[step]) {
    STATE[step] = { data: null, name: "", paste: "", text: null, version: null, worker: null, has: null, busy: null, progress: null, outcome: null, error: "", status: "", filter: "", page: 0, views: new Set() };
  }
  return STATE[step];
}

// `{name}` placeholders of a text filled from `args`.
function fill(text, args) {
  return text.replace(/\{(\w+)\}/g, (all, k) => (k in args ? String(args[k]) : all));
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v == null) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

let UNIQUE = 0;

// The chunk's glue imports this module in the worker too, where there is no DOM.
const Element = typeof HTMLElement === "undefined" ? class {} : HTMLElement;

class ImportPanel extends Element {
  static get observedAttributes() {
    return ["lang", "step"];
  }
  connectedCallback() {
    this.render();
  }
  disconnectedCallback() {
    if (this.st) this.st.views.delete(this);
  }
  attributeChangedCallback() {
    if (this.isConnected) this.render();
  }

  render() {
    const step = this.getAttribute("step") === "8" ? "8" : "6";
    const lang = this.getAttribute("lang") === "en" ? "en" : "ko";
    const setup = CHUNK.setup[lang];
    const say = (id, args) => fill(setup.texts[id] ?? id, args || {});
    const st = state(step);
    if (this.st && this.st !== st) this.st.views.delete(this);
    this.st = st;
    st.views.add(this);
    if (st.text === null) st.text = step === "6" ? setup.pod : setup.ds;
    if (st.version === null) st.version = setup.version;
    const id = `gpulab-import-${++UNIQUE}`;
    this.replaceChildren();

    const file = el("input", { type: "file", id: `${id}-file`, class: "import-file", accept: ".yaml,.yml,.json,application/json,application/yaml", onchange: (e) => {
      const f = e.target.files && e.target.files[0];
      if (f) this.take(f, f.name);
    } });
    const chosen = el("p", { class: "import-chosen", "aria-live": "polite", text: st.data && typeof st.data !== "string" ? say("dropped", { name: st.name, size: st.data.size }) : "" });
    const drop = el("div", { class: "import-drop", style: "border:2px dashed currentColor;padding:.5rem;margin:.5rem 0" },
      el("p", { class: "field" }, el("label", { for: `${id}-file`, text: say("file") }), " ", file),
      el("p", { text: say("drop") }), chosen);
    drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.style.borderStyle = "solid"; });
    drop.addEventListener("dragleave", () => { drop.style.borderStyle = "dashed"; });
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.style.borderStyle = "dashed";
      const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (f) this.take(f, f.name);
    });
    const paste = el("textarea", { id: `${id}-paste`, class: "import-paste", rows: "5", spellcheck: "false", autocomplete: "off", oninput: (e) => {
      st.paste = e.target.value;
      if (st.paste) { st.data = st.paste; st.name = "<stdin>"; } else if (typeof st.data === "string") st.data = null;
    } });
    paste.value = st.paste;
    const textArea = el("textarea", { id: `${id}-text`, class: "import-input", rows: "12", spellcheck: "false", autocomplete: "off", oninput: (e) => { st.text = e.target.value; } });
    textArea.value = st.text;
    const controls = [];
    if (step === "6") {
      const select = el("select", { id: `${id}-version`, class: "import-version", onchange: (e) => { st.version = e.target.value; } },
        ...setup.versions.map((v) => el("option", { value: v, selected: v === st.version, text: v })));
      controls.push(el("p", { class: "field" }, el("label", { for: `${id}-version`, text: say("version") }), " ", select));
    }
    const run = el("button", { type: "button", class: "import-run", onclick: () => this.run(), text: say(step === "6" ? "run6" : "run8") });
    // Cancel exists only while a run does (the lab's CSS gives buttons a display,
    // which would beat the hidden attribute).
    const cancel = st.busy ? el("button", { type: "button", class: "import-cancel", onclick: () => cancelRun(st), text: say("cancel") }) : null;
    this.parts = { run, cancel, say, step, lang, setup };
    this.append(el("section", { class: "import", "aria-labelledby": `${id}-title` },
      el("h3", { id: `${id}-title`, text: say("title") }),
      el("p", { class: "import-private", text: say("private") }),
      el("p", { class: "import-how", text: say("how") }),
      drop,
      el("p", { class: "field" }, el("label", { for: `${id}-paste`, text: say("paste") })),
      paste,
      el("p", { class: "field" }, el("label", { for: `${id}-text`, text: say(step === "6" ? "pod" : "ds") })),
      textArea,
      ...controls,
      el("p", {}, run, cancel ? " " : null, cancel),
      this.statusView(),
      this.outcomeView()));
  }

  take(f, name) {
    const st = this.st;
    st.data = f;
    st.name = name;
    st.paste = "";
    for (const v of st.views) v.render();
  }

  statusView() {
    const { say } = this.parts;
    const st = this.st;
    const bar = st.progress ? el("progress", { max: String(Math.max(1, st.progress[1])), value: String(st.progress[0]) }) : null;
    let words = st.status ? say(st.status, st.statusArgs) : "";
    if (st.error) words = say("failed", { details: st.error });
    const inline = st.worker === false ? el("span", { class: "import-inline", text: ` ${say("inline")}` }) : null;
    return el("p", { class: "import-status", role: "status", "aria-live": "polite" }, bar, bar ? " " : null, words, inline);
  }

  outcomeView() {
    const { say, step, lang } = this.parts;
    const o = this.st.outcome;
    if (!o) return null;
    if (o.unmodelled) return el("p", { class: "import-unmodelled", role: "alert", text: o.unmodelled });
    if (o.problems.length) {
      return el("div", { class: "import-problems diagnostics", role: "alert" },
        el("p", { text: say("problems") }),
        el("ul", {}, ...o.problems.map((p) => el("li", {}, el("code", { lang: "en", text: p })))));
    }
    const same = el("p", { class: "import-same" }, say("same"), " ", el("code", { lang: "en", text: this.command() }));
    if (step === "8") {
      return el("div", { class: "import-outcome" }, same, el("pre", { class: "upstream import-text", lang: "en", text: o.text }));
    }
    return el("div", { class: "import-outcome" }, same,
      el("pre", { class: "upstream import-head", lang: "en", text: o.head }),
      this.tableView(),
      el("details", { class: "import-full" }, el("summary", { text: say("full") }), el("pre", { class: "upstream import-text", lang: "en", text: o.text })));
  }

  command() {
    const st = this.st;
    const { step, lang } = this.parts;
    const f = st.name === "<stdin>" ? "-" : st.name;
    const tail = st.name === "<stdin>" ? " < cluster.yaml" : "";
    return step === "6"
      ? `gpulab schedule -f ${f} --pod pod.yaml --runtimeclasses pod.yaml --k8s-version ${st.ranVersion}${tail}`
      : `gpulab rollout -f ${f} daemonset.yaml --lang ${lang}${tail}`;
  }

  tableView() {
    const { say } = this.parts;
    const st = this.st;
    const o = st.outcome;
    const counts = new Map();
    let fit = 0;
    for (const r of o.rows) {
      if (r.by) counts.set(r.by, (counts.get(r.by) || 0) + 1);
      else fit++;
    }
    const options = [["", say("all", { n: o.rows.length })], ["+", say("feasible", { n: fit })]];
    for (const p of ["PreFilter", ...o.plugins]) if (counts.has(p)) options.push([p, say("by", { plugin: p, n: counts.get(p) })]);
    if (!options.some(([v]) => v === st.filter)) st.filter = "";
    const rows = o.rows.filter((r) => (st.filter === "" ? true : st.filter === "+" ? !r.by : r.by === st.filter));
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    st.page = Math.min(st.page, pages - 1);
    const from = st.page * PAGE;
    const shown = rows.slice(from, from + PAGE);
    const id = `gpulab-import-${++UNIQUE}`;
    const again = () => { for (const v of this.st.views) v.rerenderTable(); };
    const select = el("select", { id, class: "import-filter", onchange: (e) => { st.filter = e.target.value; st.page = 0; again(); } },
      ...options.map(([v, t]) => el("option", { value: v, selected: v === st.filter, text: t })));
    const caption = say("caption", { from: rows.length ? from + 1 : 0, to: from + shown.length, n: rows.length });
    const table = el("table", { class: "import-table" },
      el("caption", { text: caption }),
      el("thead", {}, el("tr", {}, ...["NODE", ...o.plugins, "SCORE"].map((h) => el("th", { scope: "col", lang: "en", text: h })))),
      el("tbody", {}, ...shown.map((r) => el("tr", {}, el("th", { scope: "row", lang: "en", text: r.node }), ...r.cells.map((c) => el("td", { lang: "en", text: c })), el("td", { text: r.score })))));
    const prev = el("button", { type: "button", class: "import-prev", disabled: st.page === 0, onclick: () => { st.page--; again(); }, text: say("prev") });
    const next = el("button", { type: "button", class: "import-next", disabled: st.page >= pages - 1, onclick: () => { st.page++; again(); }, text: say("next") });
    this.tableBox = el("div", { class: "import-nodes" },
      el("p", { class: "field" }, el("label", { for: id, text: say("filter") }), " ", select),
      el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": caption }, table),
      el("p", {}, prev, " ", next));
    return this.tableBox;
  }

  rerenderTable() {
    if (!this.tableBox) return;
    const focused = document.activeElement;
    const cls = focused && this.tableBox.contains(focused) ? focused.className : null;
    const old = this.tableBox;
    old.replaceWith(this.tableView());
    if (cls) {
      const again = this.tableBox.querySelector(`.${cls.split(" ")[0]}`);
      if (again && !again.disabled) again.focus();
      else this.tableBox.querySelector(".import-filter")?.focus();
    }
  }

  run() {
    const st = this.st;
    const { step, lang } = this.parts;
    if (st.busy) return;
    st.error = "";
    st.outcome = null;
    if (!st.data) {
      st.status = "none";
      st.statusArgs = {};
      return refresh(st);
    }
    // A worker that read this dump already only runs the model again.
    const reuse = !!st.worker && st.has !== null && st.has === st.data;
    const d = { js: CHUNK.js, wasm: CHUNK.wasm, step, lang, name: st.name, data: st.data, reuse, slice: SLICE,
      fileName: step === "6" ? "pod.yaml" : "daemonset.yaml", text: st.text, version: st.version };
    const t0 = performance.now();
    const token = { cancelled: false };
    st.busy = token;
    st.progress = null;
    st.status = "running";
    st.statusArgs = {};
    refresh(st);
    const onMessage = (x) => {
      if (token.cancelled) return;
      if (x.progress) {
        st.progress = x.progress;
        st.status = "reading";
        st.statusArgs = { done: x.progress[0], total: x.progress[1] };
        return refreshStatus(st);
      }
      if (x.running) {
        st.status = "running";
        st.statusArgs = {};
        return refreshStatus(st);
      }
      st.busy = null;
      st.progress = null;
      if (x.error) {
        st.has = null;
        st.error = x.error;
        st.status = "";
        return refresh(st);
      }
      st.has = st.data;
      const reply = JSON.parse(x.reply);
      if (reply.Err !== undefined) {
        st.error = reply.Err;
        st.status = "";
        return refresh(st);
      }
      st.outcome = reply.Ok;
      st.ranVersion = st.version;
      st.filter = "";
      st.page = 0;
      const ms = Math.round(performance.now() - t0);
      st.status = step === "6" ? "done6" : "done8";
      st.statusArgs = { nodes: reply.Ok.nodes, pods: reply.Ok.pods, ms };
      refresh(st);
      for (const v of st.views) v.dispatchEvent(new CustomEvent("gpulab-import-done", { bubbles: true, detail: { ms } }));
    };
    let url = null;
    if (!st.worker && st.worker !== false) {
      try {
        url = URL.createObjectURL(new Blob([WORKER_SRC], { type: "text/javascript" }));
        st.worker = new Worker(url, { type: "module" });
      } catch {
        st.worker = false;
      }
    }
    if (st.worker) {
      st.worker.onmessage = (e) => {
        if (url) URL.revokeObjectURL(url);
        url = null;
        onMessage(e.data);
      };
      // The worker's script did not run (a page's policy may refuse it): the same
      // job on this thread instead.
      st.worker.onerror = (e) => {
        e.preventDefault?.();
        if (token.cancelled) return;
        st.worker.terminate();
        st.worker = false;
        st.busy = null;
        this.run();
      };
      const { data, ...rest } = d;
      st.worker.postMessage({ ...rest, data: reuse ? null : data });
    } else {
      // No worker (a page's policy forbids it): the same job on this thread, one
      // slice per task, so the page stays responsive and Cancel is heard.
      import(CHUNK.js).then(async (m) => {
        await m.default({ module_or_path: CHUNK.wasm });
        return m;
      }).then((m) => job(m, d, (x) => {
        if (token.cancelled) throw new Error("cancelled");
        onMessage(x);
      }, () => new Promise((r) => setTimeout(r, 0)))).catch((err) => {
        if (!token.cancelled) onMessage({ error: String(err && err.message || err) });
      });
    }
  }
}

function cancelRun(st) {
  if (!st.busy) return;
  st.busy.cancelled = true;
  st.busy = null;
  // The worker stops where it is; the next run starts a fresh one and reads again.
  if (st.worker) st.worker.terminate();
  st.worker = null;
  st.has = null;
  st.progress = null;
  st.status = "cancelled";
  st.statusArgs = {};
  refresh(st);
}

// Every view of the step drawn again, keyboard focus kept on the same control (or
// on Run when the focused one is gone, as Cancel is once a run ends).
function refresh(st) {
  for (const v of st.views) {
    const focused = document.activeElement;
    const cls = focused && v.contains(focused) && focused.classList.length ? focused.classList[0] : null;
    v.render();
    if (cls) {
      const again = v.querySelector(`.${cls}`);
      (again && !again.hidden && !again.disabled ? again : v.parts.run).focus();
    }
  }
}

function refreshStatus(st) {
  for (const v of st.views) {
    const old = v.querySelector(".import-status");
    if (old) old.replaceWith(v.statusView());
  }
}

/** Defines <gpulab-import> (once, on a page; not in a worker): `version` names the
 *  chunk's files beside the app's; `ko` and `en` are the panel's words and defaults
 *  (JSON: texts, versions, version, pod, ds). */
export function define_import(version, ko, en) {
  if (typeof customElements === "undefined" || customElements.get("gpulab-import")) return;
  const base = new URL("../../../../", import.meta.url);
  CHUNK = {
    js: new URL(`gpu-node-lab-k8s-${version}.js`, base).href,
    wasm: new URL(`gpu-node-lab-k8s-${version}_bg.wasm`, base).href,
    setup: { ko: JSON.parse(ko), en: JSON.parse(en) },
  };
  customElements.define("gpulab-import", ImportPanel);
}
