//! An insertion-ordered tool registry with the reference's duplicate policy.

use std::collections::HashMap;

/// What `register` does with a name that is already registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicatePolicy {
    /// The new tool takes the old one's position (the default).
    #[default]
    Replace,
    /// Registration fails with [`RegistryError::Duplicate`].
    Error,
}

/// A registry failure, with the reference's messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// `duplicate: "error"` and the name is taken.
    #[error("Duplicate tool: {name}")]
    Duplicate {
        /// The tool name.
        name: String,
    },
    /// `resolve` of a name that is not registered.
    #[error("{}", crate::tools::blocked::unknown_tool_message(name))]
    Unknown {
        /// The tool name.
        name: String,
    },
}

impl RegistryError {
    /// A stable code: `ERR_PRISM_DUPLICATE_TOOL` or `ERR_PRISM_UNKNOWN_TOOL`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Duplicate { .. } => "ERR_PRISM_DUPLICATE_TOOL",
            Self::Unknown { .. } => "ERR_PRISM_UNKNOWN_TOOL",
        }
    }
}

/// The refusal of a registered value that is not an object with a string `name` (a host
/// language's registry checks what Rust's types already guarantee here).
#[must_use]
pub fn not_a_tool_message() -> &'static str {
    "A tool must be an object with a string name"
}

/// `Tool <name> must have an execute function`: the refusal of a tool without `execute`.
#[must_use]
pub fn no_execute_message(name: &str) -> String {
    format!("Tool {name} must have an execute function")
}

/// Tools by name, listed in insertion order; a replaced tool keeps its slot.
#[derive(Debug, Clone)]
pub struct Registry<T> {
    slots: Vec<(String, T)>,
    index: HashMap<String, usize>,
    duplicate: DuplicatePolicy,
}

impl<T> Registry<T> {
    /// An empty registry with the given duplicate policy.
    #[must_use]
    pub fn new(duplicate: DuplicatePolicy) -> Self {
        Self {
            slots: Vec::new(),
            index: HashMap::new(),
            duplicate,
        }
    }

    /// Adds or replaces `tool` under `name`.
    ///
    /// # Errors
    /// [`RegistryError::Duplicate`] when the name is taken and the policy is `Error`.
    pub fn register(&mut self, name: &str, tool: T) -> Result<(), RegistryError> {
        if let Some(&i) = self.index.get(name) {
            if self.duplicate == DuplicatePolicy::Error {
                return Err(RegistryError::Duplicate {
                    name: name.to_owned(),
                });
            }
            self.slots[i].1 = tool;
        } else {
            self.index.insert(name.to_owned(), self.slots.len());
            self.slots.push((name.to_owned(), tool));
        }
        Ok(())
    }

    /// The tool registered under `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).map(|&i| &self.slots[i].1)
    }

    /// The tool registered under `name`, or an error naming it.
    ///
    /// # Errors
    /// [`RegistryError::Unknown`] when nothing is registered under `name`.
    pub fn resolve(&self, name: &str) -> Result<&T, RegistryError> {
        self.get(name).ok_or_else(|| RegistryError::Unknown {
            name: name.to_owned(),
        })
    }

    /// Every tool in insertion order.
    pub fn list(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_keeps_the_old_position() {
        let mut r = Registry::new(DuplicatePolicy::Replace);
        r.register("first", 1).ok();
        r.register("other", 2).ok();
        r.register("first", 3).ok();
        assert_eq!(r.list().copied().collect::<Vec<_>>(), [3, 2]);
    }

    #[test]
    fn error_policy_rejects_and_keeps_the_first() {
        let mut r = Registry::new(DuplicatePolicy::Error);
        r.register("a", 1).ok();
        assert_eq!(
            r.register("a", 2).map_err(|e| e.to_string()),
            Err("Duplicate tool: a".to_owned())
        );
        assert_eq!(r.get("a"), Some(&1));
        assert_eq!(
            r.resolve("b").map_err(|e| e.to_string()),
            Err("Unknown tool: b".to_owned())
        );
    }
}
