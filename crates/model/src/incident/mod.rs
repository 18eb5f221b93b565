//! One incident, on one node, carried through the lab's eight steps: the learner's
//! work (what the app saves and exports) is the input, and step 8's rollout runs on
//! the cluster it describes.
//!
//! # Layout
//!
//! - [`work`]: the learner's lab state as the progress file holds it, read with serde
//!   (the companion's `gpulab report --work` and the chunk read the same text).
//! - [`node`]: the learner's node (steps 1–4): files, version, the daemon after their
//!   step-4 operations.
//! - [`lab`]: step 8 on the learner's cluster — the seed's rollout with their node,
//!   RuntimeClass, node patches and check options — and how it ends (completed, or
//!   stalled on a node with its root causes); "break it again".
//!
//! This module sits above [`crate::daemonset`] and [`crate::scenario`]: it uses them,
//! they do not use it.

pub mod lab;
pub mod node;
pub mod work;
