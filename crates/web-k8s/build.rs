//! Takes the late Korean messages (`ftl::LATE`: the ones only the views drawn from
//! this chunk show) out of `i18n/ko.ftl` into `$OUT_DIR/ko-late.ftl`; the chunk hands
//! them to the app (`messages_ko` in `src/lib.rs`), whose first load does not carry
//! them. The same line reader as the app's build (`src/ftl.rs`).

// The app's reader; this script needs only its `late`.
#[allow(dead_code)]
#[path = "../../src/ftl.rs"]
mod ftl;

fn main() -> Result<(), String> {
    let path = "../../i18n/ko.ftl";
    println!("cargo:rerun-if-changed={path}");
    println!("cargo:rerun-if-changed=../../src/ftl.rs");
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?).join("ko-late.ftl");
    std::fs::write(&out, ftl::late(&text)).map_err(|e| format!("{}: {e}", out.display()))
}
