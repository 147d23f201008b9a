//! Coding tools: read, write, edit and shell with hard output bounds.
