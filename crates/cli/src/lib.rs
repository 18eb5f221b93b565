//! The companion's library half: what the `gpulab` binary and the test harness share.
//! Only [`cluster`] lives here — the local control plane `gpulab cluster up` starts and
//! the integration tests start through the very same [`cluster::Cluster::start`].

pub mod cluster;
