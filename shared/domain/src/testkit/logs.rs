//! A log sink for tests that assert on what was logged (nothing secret reaches a log).

use std::{
    io::Write,
    sync::{Arc, Mutex, PoisonError},
};

/// An in-memory `Write` that every clone appends to: give one clone to a subscriber's
/// writer, read the text through another.
#[derive(Clone, Default)]
pub struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Everything written so far, as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_clone_writes_to_one_buffer() {
        let buf = LogBuffer::default();
        let mut a = buf.clone();
        let mut b = buf.clone();
        a.write_all(b"one ").unwrap_or_default();
        b.write_all(b"two").unwrap_or_default();
        assert_eq!(buf.text(), "one two");
    }
}
