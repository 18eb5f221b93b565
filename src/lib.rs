//! The GPU Node Lab web app (Yew). Filled in below.
