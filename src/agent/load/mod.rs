//! Load control: how many runs are in flight ([`admission`]: slots
//! within the memory budget, a soft threshold past which new runs take the
//! direct searches), how many agent runs a caller may start
//! ([`allowance`]), and whether the model is skipped after repeated
//! failures ([`circuit`]).

mod admission;
mod allowance;
mod circuit;

pub use admission::{Admission, Overloaded, Ticket};
pub use allowance::Allowance;
pub use circuit::Circuit;
