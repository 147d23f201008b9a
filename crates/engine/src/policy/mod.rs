//! Coding execution policy: roots, command analysis, approvals and sandboxes.
