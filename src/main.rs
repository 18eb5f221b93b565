//! Trunk's entry point: the page mounts the lab itself through the exported `mount`.
fn main() {}
