//! A terminal that claims to be 65535x65535 (what an SSH client may send):
//! the stepper draws within 1000x500 cells and its memory stays bounded.
//! Alone in its own test binary, so the peak resident size read from
//! `/proc/self/status` is this test's.

mod support;

use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use support::load_scenario;
use warpstep::tui::{App, ClampedBackend, Options};

/// A terminal that reports a size and keeps none of it: it only notes the
/// farthest cell drawn and how many cells arrived.
struct ClaimedSize {
    size: Size,
    max: (u16, u16),
    cells: u64,
}

impl Backend for ClaimedSize {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        for (x, y, _) in content {
            self.max = (self.max.0.max(x), self.max.1.max(y));
            self.cells += 1;
        }
        Ok(())
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        Ok(Position::ORIGIN)
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, _: P) -> std::io::Result<()> {
        Ok(())
    }
    fn clear(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn clear_region(&mut self, _: ClearType) -> std::io::Result<()> {
        Ok(())
    }
    fn size(&self) -> std::io::Result<Size> {
        Ok(self.size)
    }
    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        Ok(WindowSize {
            columns_rows: self.size,
            pixels: Size::new(0, 0),
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Peak resident set size of this process, in kB (`VmHWM`).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_65535_square_terminal_is_drawn_within_1000x500_cells_and_100_mb() {
    let app = App::new(load_scenario("divergent-loop"), Options::default()).expect("links");
    let backend = ClampedBackend::new(ClaimedSize {
        size: Size::new(65535, 65535),
        max: (0, 0),
        cells: 0,
    });
    let mut terminal = Terminal::new(backend).expect("terminal");
    for _ in 0..2 {
        terminal.draw(|f| app.draw(f)).expect("draws");
    }
    // The frame the app drew in and the buffers ratatui allocated: the
    // documented maximum, 1000 x 500 = 500,000 cells.
    let frame = terminal.get_frame().area();
    assert_eq!((frame.width, frame.height), (1000, 500));
    assert_eq!(terminal.current_buffer_mut().content.len(), 500_000);
    let drawn = terminal.backend().inner();
    assert!(drawn.max.0 < 1000 && drawn.max.1 < 500, "{:?}", drawn.max);
    // The first frame sends every cell once; the second only changes.
    assert!(drawn.cells <= 2 * 500_000, "{}", drawn.cells);
    if let Some(kb) = peak_rss_kb() {
        assert!(kb < 100 * 1024, "peak resident size {kb} kB");
    }
}
