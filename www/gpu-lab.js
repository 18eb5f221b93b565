// GPU Node Lab loader: defines the <gpu-lab> custom element and window.GpuLab.
// Any page can use it: <script type="module" src="…/gpu-lab.js"></script>, then
// <gpu-lab lang="en" step="2"></gpu-lab>, or GpuLab.mount(element, { lang, step }).
// It initialises the wasm module itself unless the page already did (Trunk's
// index.html exposes window.wasmBindings).

const bindings = window.wasmBindings
  ? Promise.resolve(window.wasmBindings)
  : import("./gpu-node-lab-0.1.0.js").then(async (module) => {
      await module.default({ module_or_path: new URL("./gpu-node-lab-0.1.0_bg.wasm", import.meta.url) });
      return module;
    });

/** Mounts a lab into `root`; resolves to its handle (update / state / destroy). */
export async function mount(root, options = {}) {
  const { mount } = await bindings;
  return mount(root, options);
}

function optionsOf(element) {
  const options = {};
  const lang = element.getAttribute("lang");
  if (lang) options.lang = lang;
  const step = element.getAttribute("step");
  if (step !== null && step !== "") options.step = Number(step);
  return options;
}

class GpuLabElement extends HTMLElement {
  static observedAttributes = ["lang", "step"];

  async connectedCallback() {
    if (this.handle || this.mounting) return;
    this.mounting = true;
    try {
      this.handle = await mount(this, optionsOf(this));
    } catch (error) {
      // A bad attribute is the author's mistake: say so in the page, not only the console.
      this.textContent = String(error?.message ?? error);
      this.setAttribute("data-error", "");
      console.error(error);
    } finally {
      this.mounting = false;
    }
  }

  disconnectedCallback() {
    this.handle?.destroy();
    this.handle = undefined;
  }

  attributeChangedCallback() {
    try {
      this.handle?.update(optionsOf(this));
    } catch (error) {
      console.error(error);
    }
  }
}

if (!customElements.get("gpu-lab")) customElements.define("gpu-lab", GpuLabElement);
window.GpuLab = Object.freeze({ version: 1, mount });
