//! The words of the sequential middleware runner (`tool_call` / `tool_result` hooks): what it
//! reports when one middleware misuses `next`, and the extension name its errors carry.

/// `Middleware hook "<hook>" #<index>: next() called more than once`.
#[must_use]
pub fn next_called_twice_message(hook: &str, index: u32) -> String {
    format!("Middleware hook \"{hook}\" #{index}: next() called more than once")
}

/// The report of a middleware that called `next(value)` and returned another value (the
/// value given to `next` is kept).
#[must_use]
pub fn value_dropped_message(hook: &str, index: u32) -> String {
    format!(
        "Middleware hook \"{hook}\" #{index}: called next(value) and returned a different value; the value given to next() is kept and the return value is dropped"
    )
}

/// `middleware:<hook>`: the `extension` of an `extension_error` a middleware raised.
#[must_use]
pub fn extension_name(hook: &str) -> String {
    format!("middleware:{hook}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_hook_and_its_position() {
        assert_eq!(
            next_called_twice_message("tool_call", 1),
            "Middleware hook \"tool_call\" #1: next() called more than once"
        );
        assert!(value_dropped_message("tool_result", 0)
            .starts_with("Middleware hook \"tool_result\" #0: called next(value)"));
        assert_eq!(extension_name("tool_call"), "middleware:tool_call");
    }
}
