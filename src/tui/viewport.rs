//! The part of the terminal the stepper draws in.
//!
//! The terminal's size comes from whoever holds the other end: an SSH
//! client chooses its window size, and `stty rows 10000 cols 10000` is one
//! command away. ratatui keeps two cell buffers of the terminal's size, so
//! a size taken on trust is an allocation a stranger chooses (65535x65535
//! is over 4 billion cells). [`ClampedBackend`] reports at most
//! [`MAX_WIDTH`] x [`MAX_HEIGHT`] to ratatui; the stepper draws in the top
//! left corner of a larger terminal and the rest stays blank.

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

/// The widest terminal the stepper draws across, in columns.
pub const MAX_WIDTH: u16 = 1000;
/// The tallest terminal the stepper draws down, in rows.
pub const MAX_HEIGHT: u16 = 500;

/// `size` with each side cut to the drawing maximum.
pub fn clamp(size: Size) -> Size {
    Size::new(size.width.min(MAX_WIDTH), size.height.min(MAX_HEIGHT))
}

/// A backend whose reported size is clamped to [`MAX_WIDTH`] x
/// [`MAX_HEIGHT`]; everything else passes through to the real one.
pub struct ClampedBackend<B> {
    inner: B,
}

impl<B> ClampedBackend<B> {
    pub fn new(inner: B) -> ClampedBackend<B> {
        ClampedBackend { inner }
    }

    pub fn inner(&self) -> &B {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut B {
        &mut self.inner
    }
}

impl<B: Backend> Backend for ClampedBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size().map(clamp)
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        let mut w = self.inner.window_size()?;
        w.columns_rows = clamp(w.columns_rows);
        Ok(w)
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_above_the_maximum_are_cut_and_smaller_ones_kept() {
        assert_eq!(clamp(Size::new(65535, 65535)), Size::new(1000, 500));
        assert_eq!(clamp(Size::new(1001, 30)), Size::new(1000, 30));
        assert_eq!(clamp(Size::new(80, 24)), Size::new(80, 24));
    }
}
