//! Captures the app's logs (all tests of this binary share one buffer) so
//! tests can assert what is and is not logged.

use std::{
    io::Write,
    sync::{Mutex, OnceLock},
};

use tracing_subscriber::{fmt::MakeWriter, layer::SubscriberExt, util::SubscriberInitExt};

static BUFFER: OnceLock<Mutex<Vec<u8>>> = OnceLock::new();

fn buffer() -> &'static Mutex<Vec<u8>> {
    BUFFER.get_or_init(|| Mutex::new(Vec::new()))
}

struct Capture;

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        buffer().lock().unwrap().extend_from_slice(buf);
        if std::env::var_os("TEST_LOG").is_some() {
            std::io::stderr().write_all(buf)?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Capture {
    type Writer = Capture;
    fn make_writer(&'a self) -> Self::Writer {
        Capture
    }
}

/// Installs the capturing subscriber once per test binary: the service's
/// own log layer (JSON, as in production) at `trace`, the most a `RUST_LOG`
/// can ask for, so every test's logs are checked at the most verbose level.
pub fn init() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let layer = linkup_suggestions::telemetry::layer("json", "trace", Capture);
        let _ = tracing_subscriber::registry().with(layer).try_init();
    });
}

/// Everything logged so far by any test of this binary.
pub fn all() -> String {
    String::from_utf8_lossy(&buffer().lock().unwrap()).into_owned()
}
