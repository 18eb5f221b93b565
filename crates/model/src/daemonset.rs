//! The DaemonSet controller's rolling update and `kubectl rollout status`.
//! Not built yet (issue 6).
