//! Control-flow graph and immediate post-dominators.
//!
//! The `stack` convergence model reconverges a divergent branch at the
//! immediate post-dominator (IPDOM) of the branch's basic block: the first
//! point every path from the branch must pass. Paths that end in EXIT meet
//! at a virtual exit node; a branch whose IPDOM is that node never
//! reconverges before EXIT ([`EXIT_PC`]).

use super::ir::{EXIT_PC, Op};

/// Control-flow shape of one instruction, all the CFG needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Jumps to `target`; `conditional` also falls through.
    Branch { target: u32, conditional: bool },
    /// Leaves the program; `conditional` also falls through.
    Exit { conditional: bool },
    /// Jumps, per lane, to one of a list of targets given beside the flow
    /// (`RET`: the return points of the program's calls; `BRX`: the
    /// targets it lists; none known: to the exit); `conditional` also
    /// falls through.
    Indirect { conditional: bool },
}

impl Flow {
    pub fn of(op: &Op, guarded: bool) -> Flow {
        match op {
            Op::Bra { target, cond } => Flow::Branch {
                target: *target,
                conditional: guarded || !cond.is_always_true(),
            },
            Op::Call { target } => Flow::Branch {
                target: *target,
                conditional: guarded,
            },
            Op::Ret { .. } | Op::Brx { .. } => Flow::Indirect {
                conditional: guarded,
            },
            Op::Exit => Flow::Exit {
                conditional: guarded,
            },
            _ => Flow::Next,
        }
    }

    fn ends_block(self) -> bool {
        !matches!(self, Flow::Next)
    }
}

/// A control-flow graph over basic blocks; node `blocks.len()` is the
/// virtual exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cfg {
    /// `[start, end)` instruction ranges.
    pub blocks: Vec<(u32, u32)>,
    pub succs: Vec<Vec<usize>>,
    /// Immediate post-dominator of each block (`blocks.len()` = virtual exit).
    pub ipdom: Vec<usize>,
}

impl Cfg {
    /// Builds the graph. `extra_leaders` are instructions that must start a
    /// block even if nothing branches there (labels named by `BSSY`).
    pub fn build(flow: &[Flow], extra_leaders: &[u32]) -> Cfg {
        Self::build_with_targets(flow, extra_leaders, &[])
    }

    /// [`Cfg::build`] with the targets of each [`Flow::Indirect`]
    /// instruction: `targets[pc]` (missing or empty: unknown targets, an
    /// edge to the exit).
    pub fn build_with_targets(flow: &[Flow], extra_leaders: &[u32], targets: &[Vec<u32>]) -> Cfg {
        let n = flow.len();
        let targets_of = |pc: usize| targets.get(pc).map_or(&[][..], |t| t.as_slice());
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for (i, f) in flow.iter().enumerate() {
            if let Flow::Branch { target, .. } = f
                && (*target as usize) < n
            {
                leader[*target as usize] = true;
            }
            if let Flow::Indirect { .. } = f {
                for &t in targets_of(i) {
                    if (t as usize) < n {
                        leader[t as usize] = true;
                    }
                }
            }
            if f.ends_block() {
                leader[i + 1] = true;
            }
        }
        for &t in extra_leaders {
            if (t as usize) < n {
                leader[t as usize] = true;
            }
        }
        let mut blocks = Vec::new();
        let mut start = 0;
        for (i, &is_leader) in leader.iter().enumerate().skip(1) {
            if is_leader || i == n {
                if start < i {
                    blocks.push((start as u32, i as u32));
                }
                start = i;
            }
        }
        let exit = blocks.len();
        let block_of =
            |pc: u32| -> usize { blocks.partition_point(|&(s, _)| s <= pc).saturating_sub(1) };
        let mut succs = vec![Vec::new(); blocks.len()];
        for (b, &(_, end)) in blocks.iter().enumerate() {
            let last = (end - 1) as usize;
            let fall = |s: &mut Vec<usize>| {
                if (end as usize) < n {
                    s.push(block_of(end));
                } else {
                    // Falling off the end: the assembler rejects this, but
                    // the graph still needs an edge.
                    s.push(exit);
                }
            };
            let s = &mut succs[b];
            match flow[last] {
                Flow::Next => fall(s),
                Flow::Branch {
                    target,
                    conditional,
                } => {
                    if (target as usize) < n {
                        s.push(block_of(target));
                    } else {
                        s.push(exit);
                    }
                    if conditional {
                        fall(s);
                    }
                }
                Flow::Indirect { conditional } => {
                    let ts = targets_of(last);
                    for &t in ts {
                        s.push(if (t as usize) < n { block_of(t) } else { exit });
                    }
                    if ts.is_empty() {
                        s.push(exit);
                    }
                    if conditional {
                        fall(s);
                    }
                    s.sort_unstable();
                }
                Flow::Exit { conditional } => {
                    if conditional {
                        fall(s);
                    }
                    s.push(exit);
                }
            }
            s.dedup();
        }
        let ipdom = post_dominators(&succs, exit);
        Cfg {
            blocks,
            succs,
            ipdom,
        }
    }

    /// The reconvergence pc for a divergent branch in block `b`.
    pub fn reconvergence_pc(&self, b: usize) -> u32 {
        match self.blocks.get(self.ipdom[b]) {
            Some(&(start, _)) => start,
            None => EXIT_PC,
        }
    }

    /// The block holding instruction `pc`.
    pub fn block_of(&self, pc: u32) -> usize {
        self.blocks
            .partition_point(|&(s, _)| s <= pc)
            .saturating_sub(1)
    }
}

/// Immediate post-dominators by the Cooper-Harvey-Kennedy iteration on the
/// reversed graph rooted at the virtual exit. Blocks that cannot reach the
/// exit (an infinite loop) get the exit as their post-dominator.
fn post_dominators(succs: &[Vec<usize>], exit: usize) -> Vec<usize> {
    let n = exit + 1;
    let mut preds_rev = vec![Vec::new(); n]; // predecessors in the reversed graph = successors
    let mut rev_succ = vec![Vec::new(); n]; // successors in the reversed graph = predecessors
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            rev_succ[s].push(b);
            preds_rev[b].push(s);
        }
    }
    // Postorder of the reversed graph from the exit, iteratively.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some((node, i)) = stack.pop() {
        if let Some(&next) = rev_succ[node].get(i) {
            stack.push((node, i + 1));
            if !seen[next] {
                seen[next] = true;
                stack.push((next, 0));
            }
        } else {
            order.push(node);
        }
    }
    let mut rank = vec![usize::MAX; n];
    for (r, &node) in order.iter().enumerate() {
        rank[node] = r;
    }
    const UNDEF: usize = usize::MAX;
    let mut idom = vec![UNDEF; n];
    idom[exit] = exit;
    let mut changed = true;
    while changed {
        changed = false;
        for &node in order.iter().rev() {
            if node == exit {
                continue;
            }
            let mut new = UNDEF;
            for &p in &preds_rev[node] {
                if idom[p] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    intersect(&idom, &rank, p, new)
                };
            }
            if new != UNDEF && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    idom.truncate(exit);
    for d in &mut idom {
        if *d == UNDEF {
            *d = exit;
        }
    }
    idom
}

fn intersect(idom: &[usize], rank: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rank[a] < rank[b] {
            a = idom[a];
        }
        while rank[b] < rank[a] {
            b = idom[b];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indirect_jumps_go_to_their_listed_targets() {
        // 0: BRX to 2 or 4 / 1: (dead) / 2: A / 3: BRA 5 / 4: B / 5: EXIT
        let ind = Flow::Indirect { conditional: false };
        let flow = [ind, next(), next(), jmp(5), next(), exit()];
        let targets = vec![vec![2, 4]];
        let g = Cfg::build_with_targets(&flow, &[], &targets);
        assert_eq!(g.blocks, vec![(0, 1), (1, 2), (2, 4), (4, 5), (5, 6)]);
        assert_eq!(g.succs[0], vec![2, 3]);
        // Both ways meet at 5.
        assert_eq!(g.reconvergence_pc(0), 5);
        // Unknown targets: only the exit post-dominates.
        let g = Cfg::build(&flow, &[]);
        assert_eq!(g.reconvergence_pc(0), EXIT_PC);
    }

    fn next() -> Flow {
        Flow::Next
    }
    fn br(t: u32) -> Flow {
        Flow::Branch {
            target: t,
            conditional: true,
        }
    }
    fn jmp(t: u32) -> Flow {
        Flow::Branch {
            target: t,
            conditional: false,
        }
    }
    fn exit() -> Flow {
        Flow::Exit { conditional: false }
    }

    /// Reconvergence pc of the branch at instruction `pc`.
    fn rpc(flow: &[Flow], pc: u32) -> u32 {
        let cfg = Cfg::build(flow, &[]);
        cfg.reconvergence_pc(cfg.block_of(pc))
    }

    #[test]
    fn if_else_reconverges_at_the_join() {
        // 0: @P0 BRA 3 / 1: A / 2: BRA 4 / 3: B / 4: join / 5: EXIT
        let f = [br(3), next(), jmp(4), next(), next(), exit()];
        assert_eq!(rpc(&f, 0), 4);
        let cfg = Cfg::build(&f, &[]);
        assert_eq!(cfg.blocks, vec![(0, 1), (1, 3), (3, 4), (4, 6)]);
    }

    #[test]
    fn if_without_else_reconverges_after_the_body() {
        // 0: @P0 BRA 3 / 1: body / 2: body / 3: join / 4: EXIT
        let f = [br(3), next(), next(), next(), exit()];
        assert_eq!(rpc(&f, 0), 3);
    }

    #[test]
    fn loop_latch_reconverges_at_the_exit_block() {
        // 0: init / 1: body / 2: @P0 BRA 1 / 3: after / 4: EXIT
        let f = [next(), next(), br(1), next(), exit()];
        assert_eq!(rpc(&f, 2), 3);
    }

    #[test]
    fn break_out_of_a_nested_loop_reconverges_far_downstream() {
        // 0: outer: / 1: inner body / 2: @P1 BRA 6 (break out of both)
        // 3: @P0 BRA 1 (inner latch) / 4: outer tail / 5: @P2 BRA 0 (outer latch)
        // 6: after / 7: EXIT
        let f = [next(), next(), br(6), br(1), next(), br(0), next(), exit()];
        // The break's paths meet only at `after`.
        assert_eq!(rpc(&f, 2), 6);
        // The inner latch: continuing lanes and leaving lanes can still take
        // the break later, so they too only meet at `after`.
        assert_eq!(rpc(&f, 3), 6);
        assert_eq!(rpc(&f, 5), 6);
    }

    #[test]
    fn switch_chain_reconverges_at_the_common_tail() {
        // 0: @P0 BRA 6 / 1: @P1 BRA 8 / 2: @P2 BRA 10 / 3: default / 4: BRA 12
        // 5: (dead) / 6: case0 / 7: BRA 12 / 8: case1 / 9: BRA 12
        // 10: case2 / 11: BRA 12 / 12: tail / 13: EXIT
        let f = [
            br(6),
            br(8),
            br(10),
            next(),
            jmp(12),
            next(),
            next(),
            jmp(12),
            next(),
            jmp(12),
            next(),
            jmp(12),
            next(),
            exit(),
        ];
        for b in [0, 1, 2] {
            assert_eq!(rpc(&f, b), 12, "branch at {b}");
        }
    }

    #[test]
    fn paths_that_exit_separately_never_reconverge() {
        // 0: @P0 BRA 3 / 1: A / 2: EXIT / 3: B / 4: EXIT
        let f = [br(3), next(), exit(), next(), exit()];
        assert_eq!(rpc(&f, 0), EXIT_PC);
    }

    #[test]
    fn predicated_exit_splits_a_block() {
        // 0: @P0 EXIT / 1: x / 2: EXIT
        let f = [Flow::Exit { conditional: true }, next(), exit()];
        let cfg = Cfg::build(&f, &[]);
        assert_eq!(cfg.blocks, vec![(0, 1), (1, 3)]);
        assert_eq!(cfg.reconvergence_pc(0), EXIT_PC);
    }

    #[test]
    fn paths_into_an_infinite_loop_do_not_count() {
        // 0: @P0 BRA 2 / 1: BRA 1 (spins) / 2: EXIT. Post-dominance is over
        // paths that reach the exit, so the spinning side is ignored and
        // the other side's block is the reconvergence point.
        let f = [br(2), jmp(1), exit()];
        assert_eq!(rpc(&f, 0), 2);
        let cfg = Cfg::build(&f, &[]);
        assert_eq!(cfg.ipdom[1], cfg.blocks.len());
    }
}
