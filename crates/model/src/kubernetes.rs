//! Kubernetes: GPU advertisement, the scheduler's filters and FailedScheduling text,
//! RuntimeClass admission and the kubelet's sandbox errors. Not built yet (issue 5).
