//! Divergence and reconvergence: the two models of docs/execution-model.md.

pub mod its;
pub mod stack;

pub use its::{ItsState, LaneWait};
pub use stack::SimtStack;

/// A warp's convergence state under the scenario's model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Convergence {
    Stack(SimtStack),
    Its(Box<ItsState>),
}
