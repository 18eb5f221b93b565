//! containerd: a node's config files merged and decoded exactly as each containerd
//! version does, the collision explained, and the daemon as a state machine.
//! Not built yet (issue 3).
