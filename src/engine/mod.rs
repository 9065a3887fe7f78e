//! The cycle-level SM model.
