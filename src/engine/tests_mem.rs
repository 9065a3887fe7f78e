//! Engine tests of the uniform datapath, constants, special registers,
//! 2-D launches, 64-bit and local addressing and atomics: small programs
//! written by hand, every expected value worked out by hand in a comment.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;
use crate::asm::assemble;

/// Global buffer base of the tests (the first one the scenario layout uses).
const BASE: u32 = 0x10_0000;

/// One u32 buffer of `len` zero words at [`BASE`].
fn buffer(len: u32) -> Vec<BufferSpec> {
    vec![BufferSpec {
        name: "buf".into(),
        ty: ElemType::U32,
        len,
        base: BASE,
        init: vec![0; len as usize * 4],
    }]
}

/// `program` for `arch` (None: hand-written) linked against `constants`
/// and launched as `launch`; runs it and returns the machine.
fn run_with(
    program: &str,
    arch: Option<u32>,
    constants: &[(u32, u32)],
    launch: Launch,
    buffers: Vec<BufferSpec>,
) -> Machine {
    run_on(
        MachineConfig::default(),
        program,
        arch,
        constants,
        launch,
        buffers,
    )
}

/// [`run_with`] on machine `config`.
fn run_on(
    config: MachineConfig,
    program: &str,
    arch: Option<u32>,
    constants: &[(u32, u32)],
    launch: Launch,
    buffers: Vec<BufferSpec>,
) -> Machine {
    let mut prog = match assemble(program, config.latency.alu) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    prog.arch = arch;
    let constants: BTreeMap<u32, u32> = constants.iter().copied().collect();
    let kernel = match Kernel::link(prog, constants, &config.latency, launch) {
        Ok(k) => k.with_buffers(buffers),
        Err(e) => panic!("{e}"),
    };
    let mut m = match Machine::new(config, Arc::new(kernel)) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    m.set_keep_final_states(true);
    m.run().expect("runs");
    m
}

fn one_warp() -> Launch {
    Launch::linear(1, 32, 1024)
}

#[test]
fn uniform_registers_and_predicates() {
    let m = run_with(
        "
        S2R R1, SR_LANEID
        ISETP.LT.AND P0, PT, R1, 5, PT
        ISETP.GE.AND P1, PT, R1, 3, PT
        ULDC.64 UR6, c[0x0][0x160]
        UMOV UR8, 0x7
        UIADD3 UR9, UP0, UR8, -0x8, URZ
        UIADD3 UR10, UP1, UR9, 0x2, URZ
        UIADD3.X UR11, URZ, URZ, URZ, UP1, !UPT
        ULEA UR12, UR8, UR10, 0x4
        USHF.R.U32.HI UR13, URZ, 0x1, UR12
        UISETP.GE.U32.AND UP2, UPT, UR13, 0x38, UPT
        UIMAD.WIDE.U32 UR14, UR12, 0x10000000, URZ
        ULOP3.LUT UR16, UR12, 0xf, URZ, 0xc0, !UPT
        UPRMT UR17, UR12, 0x7770, URZ
        VOTEU.ANY UR18, UP3, P0
        @P1 R2UR UR19, R1
        UMOV.64 UR20, UR14
        UIMAD UR22, UR8, UR8, 0x1
        ULDC.U8 UR23, c[0x0][0x161]
        IMAD R4, R1, UR12, RZ
        IADD3 R5, R1, -UR10, RZ
        S2UR UR24, SR_CgaCtaId
        S2UR UR25, SR_CTAID.X
        IADD3 R6, R1, -0x10, RZ
        REDUX.MIN.S32 UR26, R6
        REDUX.MAX.S32 UR27, R6
        @P0 REDUX.SUM UR28, R1
        MOV.64 R8, UR14
        EXIT
        ",
        None,
        &[(0x160, 0x0012_3456)],
        one_warp(),
        vec![],
    );
    let states = m.final_states();
    let s = states[0];
    let u = |r: usize| s.uregs[r];
    // c[0x160] and the unset high word (reads 0).
    assert_eq!((u(6), u(7)), (0x0012_3456, 0));
    // 7 + 0xfffffff8 = 0xffffffff, no carry; + 2 = 1 with a carry.
    assert_eq!((u(9), u(10)), (0xffff_ffff, 1));
    // UP0 false, UP1 true; the carry-in gives UR11 = 1.
    assert_eq!(u(11), 1);
    // (7 << 4) + 1 = 113; 113 >> 1 = 56 >= 0x38: UP2 true.
    assert_eq!((u(12), u(13)), (113, 56));
    // 113 * 2^28 = 0x7_1000_0000.
    assert_eq!((u(14), u(15)), (0x1000_0000, 7));
    // 113 & 0xf = 1; byte 0 of 113 is 113.
    assert_eq!((u(16), u(17)), (1, 113));
    // Lanes 0..4 have P0: ballot 0x1f, and the vote is true (UP3).
    assert_eq!(u(18), 0x1f);
    // The lowest lane with P1 is 3.
    assert_eq!(u(19), 3);
    assert_eq!((u(20), u(21)), (0x1000_0000, 7));
    // 7 * 7 + 1; byte 1 of 0x123456 is 0x34.
    assert_eq!((u(22), u(23)), (50, 0x34));
    assert_eq!((u(24), u(25)), (0, 0));
    // Lane - 16 over 32 lanes: min -16, max 15; lanes 0..4 sum to 10.
    assert_eq!((u(26), u(27), u(28)), ((-16i32) as u32, 15, 10));
    // UP0 clear, UP1 UP2 UP3 set: 0b1110.
    assert_eq!(s.upreds, 0b1110);
    let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
    for l in 0..32 {
        assert_eq!(reg(4, l), 113 * l, "IMAD with UR12, lane {l}");
        assert_eq!(reg(5, l), l.wrapping_sub(1), "IADD3 with -UR10, lane {l}");
        // The pair UR14:UR15.
        assert_eq!((reg(8, l), reg(9, l)), (0x1000_0000, 7), "MOV.64 lane {l}");
    }
}

#[test]
fn constants_and_special_registers() {
    let m = run_with(
        "
        S2R R1, SR_LANEID
        LDC R2, c[0x0][0x0]
        LDC.64 R4, c[0x0][0x8]
        LOP3.LUT R6, R1, 0x3, RZ, 0xc0, !PT
        SHL R6, R6, 0x2
        LDC R7, c[0x0][R6+0x4]
        LDC.U16 R8, c[0x0][0x6]
        LDC.S8 R9, c[0x0][0x7]
        CS2R R10, SRZ
        S2R R12, SR_LTMASK
        S2R R13, SR_CgaCtaId
        EXIT
        ",
        None,
        &[(0x0, 32), (0x4, 0x8081_0000), (0x8, 5), (0xc, 6), (0x10, 9)],
        one_warp(),
        vec![],
    );
    let s = m.final_states()[0];
    let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
    for l in 0..32 {
        assert_eq!(reg(2, l), 32);
        assert_eq!((reg(4, l), reg(5, l)), (5, 6), "LDC.64 lane {l}");
        // c[0x4 + 4 * (lane % 4)]: 0x80810000, 5, 6, 9.
        let want = [0x8081_0000, 5, 6, 9][(l % 4) as usize];
        assert_eq!(reg(7, l), want, "indexed LDC lane {l}");
        // Bytes 2..3 of 0x80810000: 0x8081; byte 3 0x80 sign-extended.
        assert_eq!(reg(8, l), 0x8081);
        assert_eq!(reg(9, l), 0xffff_ff80);
        assert_eq!((reg(10, l), reg(11, l)), (0, 0));
        assert_eq!(reg(12, l), (1u32 << l) - 1, "SR_LTMASK lane {l}");
        assert_eq!(reg(13, l), 0);
    }
}

#[test]
fn clock_reads_the_issue_cycle() {
    // One warp, nothing else: dispatched at cycle 0, its first instruction
    // issues at cycle 0, the next one cycle later (the derived stall
    // between independent instructions is 1).
    let m = run_with(
        "
        S2R R0, SR_CLOCKLO
        CS2R R2, SR_CLOCKLO
        EXIT
        ",
        None,
        &[],
        one_warp(),
        vec![],
    );
    let s = m.final_states()[0];
    let r0 = s.regs[0];
    let (r2, r3) = (s.regs[2 * 32], s.regs[3 * 32]);
    assert_eq!((r0, r2, r3), (0, 1, 0));
}

#[test]
fn two_dimensional_launch_forms_warps_x_fastest() {
    // Blocks of 16 x 4 (two warps: ty 0..1, then 2..3) in a grid of 2 x 3.
    let launch = Launch {
        block_shape: Some(Dim3 { x: 16, y: 4, z: 1 }),
        grid_shape: Some(Dim3 { x: 2, y: 3, z: 1 }),
        ..Launch::linear(6, 64, 1024)
    };
    let m = run_with(
        "
        S2R R0, SR_TID.X
        S2R R1, SR_TID.Y
        S2R R2, SR_CTAID.X
        S2R R3, SR_CTAID.Y
        S2R R4, SR_TID.Z
        S2UR UR4, SR_CTAID.Y
        EXIT
        ",
        None,
        &[],
        launch,
        vec![],
    );
    let states = m.final_states();
    assert_eq!(states.len(), 12);
    for s in states {
        // Global warp = 2 * block + warp in block.
        let (block, wib) = (s.warp / 2, s.warp % 2);
        let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
        for l in 0..32 {
            assert_eq!(reg(0, l), l % 16, "tid.x warp {} lane {l}", s.warp);
            assert_eq!(
                reg(1, l),
                2 * wib + l / 16,
                "tid.y warp {} lane {l}",
                s.warp
            );
            assert_eq!(reg(2, l), block % 2);
            assert_eq!(reg(3, l), block / 2);
            assert_eq!(reg(4, l), 0);
        }
        assert_eq!(s.uregs[4], block / 2);
    }
}

#[test]
fn atomics_serialise_lanes_in_order() {
    let prog = "
        S2R R1, SR_LANEID
        MOV R2, c[0x0][0x160]
        MOV R3, 0x1
        ATOMG.E.ADD.STRONG.GPU PT, R4, [R2.64], R3
        RED.E.ADD.STRONG.GPU [R2.64+0x4], R1
        IADD3 R5, R1, -0x10, RZ
        REDG.E.MIN.S32.STRONG.GPU [R2.64+0x8], R5
        REDG.E.MAX.S32.STRONG.GPU [R2.64+0xc], R5
        ATOMG.E.EXCH.STRONG.GPU PT, R6, [R2.64+0x10], R1
        MOV R7, 0x63
        ATOMG.E.CAS.STRONG.GPU PT, R8, [R2.64+0x14], R1, R7
        MOV R9, 0x3
        ATOMG.E.INC.STRONG.GPU PT, R10, [R2.64+0x18], R9
        ATOMS.POPC.INC.32 R11, [RZ]
        ATOMS.ADD R12, [0x4], R1
        LDS R13, [RZ]
        LDS R14, [0x4]
        EXIT
    ";
    let m = run_with(prog, None, &[(0x160, BASE)], one_warp(), buffer(8));
    let word = |i: u32| m.global_word(BASE + 4 * i).expect("in the buffer");
    // 32 adds of 1; lanes 0..31 add 0..31: 496.
    assert_eq!((word(0), word(1)), (32, 496));
    // min over lane - 16 is -16, max 15 (the word starts at 0: max 15).
    assert_eq!((word(2), word(3)), ((-16i32) as u32, 15));
    // Exchanges in lane order: lane 31's value stays.
    assert_eq!(word(4), 31);
    // CAS: only lane 0 finds 0 (its compare value) and stores 99.
    assert_eq!(word(5), 99);
    // atomicInc with bound 3: 0,1,2,3,0,... after 32: 32 mod 4 = 0.
    assert_eq!(word(6), 0);
    let s = m.final_states()[0];
    let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
    for l in 0..32 {
        assert_eq!(reg(4, l), l, "old value of the add, lane {l}");
        assert_eq!(reg(6, l), if l == 0 { 0 } else { l - 1 }, "exch lane {l}");
        assert_eq!(reg(8, l), if l == 0 { 0 } else { 99 }, "cas lane {l}");
        assert_eq!(reg(10, l), l % 4, "inc lane {l}");
        assert_eq!(reg(11, l), l, "popc.inc lane {l}");
        // Lane l finds 0 + 1 + ... + (l - 1).
        assert_eq!(
            reg(12, l),
            l * l.saturating_sub(1) / 2,
            "atoms.add lane {l}"
        );
        assert_eq!((reg(13, l), reg(14, l)), (32, 496));
    }
}

#[test]
fn listings_form_64_bit_global_addresses() {
    // R2:R3 = DEVICE_WINDOW + BASE; the second access's high word is 0.
    let prog = "
        S2R R1, SR_LANEID
        MOV R2, c[0x0][0x160]
        MOV R3, 0x7f00
        STG.E [R2.64], R1
        LDG.E R4, [R2.64]
        ISETP.GE.AND P0, PT, R1, 0x10, PT
        @P0 MOV R3, RZ
        STG.E [R2.64+0x4], R1
        EXIT
    ";
    let m = run_with(prog, Some(90), &[(0x160, BASE)], one_warp(), buffer(2));
    // Lanes 16..31 faulted on the second store; the first went to BASE
    // from every lane, lane 31 last.
    assert_eq!(m.global_word(BASE), Some(31));
    // The second store: lanes 0..15, lane 15 last.
    assert_eq!(m.global_word(BASE + 4), Some(15));
    let s = m.final_states()[0];
    assert_eq!(s.faulted, 0xffff_0000);
    let f = &m.faults()[0];
    assert_eq!(f.kind, FaultKind::OutOfBounds);
    // A hand-written program ignores the high word: no fault.
    let m = run_with(prog, None, &[(0x160, BASE)], one_warp(), buffer(2));
    assert_eq!(m.final_states()[0].faulted, 0);
    assert_eq!(m.global_word(BASE + 4), Some(31));
    // Lanes 16..31 hold an address outside the window but are off: they
    // do not fault, and lanes 0..15 store (lane 15 last).
    let prog = "
        S2R R1, SR_LANEID
        MOV R2, c[0x0][0x160]
        MOV R3, 0x7f00
        ISETP.GE.AND P0, PT, R1, 0x10, PT
        @P0 MOV R3, RZ
        @!P0 STG.E [R2.64], R1
        EXIT
    ";
    let m = run_with(prog, Some(90), &[(0x160, BASE)], one_warp(), buffer(2));
    assert_eq!(m.final_states()[0].faulted, 0);
    assert_eq!(m.global_word(BASE), Some(15));
}

#[test]
fn sm90_shared_memory_starts_at_0x400() {
    let prog = "
        S2R R1, SR_LANEID
        S2UR UR5, SR_CgaCtaId
        UMOV UR4, 0x400
        ULEA UR4, UR5, UR4, 0x18
        SHL R2, R1, 0x2
        IADD3 R2, R2, UR4, RZ
        STS [R2], R1
        LDS R3, [UR4+0x8]
        ISETP.EQ.AND P0, PT, R1, 0x1f, PT
        @P0 LDS R4, [RZ]
        EXIT
    ";
    let m = run_with(prog, Some(90), &[], Launch::linear(1, 32, 128), vec![]);
    let s = m.final_states()[0];
    // Word 2 of the block's memory holds lane 2.
    assert_eq!(s.regs[3 * 32 + 5], 2);
    // Address 0 is in the reserved KiB: lane 31 faults.
    assert_eq!(s.faulted, 1 << 31);
    assert_eq!(m.faults()[0].kind, FaultKind::SharedOutOfBounds);
}

#[test]
fn a_shared_load_with_faulting_lanes_loads_the_others() {
    // Lane l stores l + 100 at word l, then loads word 17 * l (byte
    // 68 * l) of the block's 1 KiB: lanes 0..=15 are inside (lane 15
    // reads bytes 1020..1024), lanes 16..=31 fault. By hand: lane 0
    // reads word 0 (100), lane 1 word 17 (117), lanes 2..=15 words 34 and
    // up, never written (0); a faulting lane keeps R4's 0x55.
    let prog = "
        S2R R1, SR_LANEID
        SHL R2, R1, 0x2
        IADD3 R7, R1, 0x64, RZ
        STS [R2], R7
        IMAD R6, R1, 0x44, RZ
        MOV R4, 0x55
        LDS R4, [R6]
        EXIT
    ";
    let m = run_with(prog, None, &[], Launch::linear(1, 32, 1024), vec![]);
    let s = m.final_states()[0];
    let r4: Vec<u32> = (0..32).map(|l| s.regs[4 * 32 + l]).collect();
    let mut want = vec![0x55; 32];
    want[..16].fill(0);
    (want[0], want[1]) = (100, 117);
    assert_eq!(r4, want);
    assert_eq!(s.faulted, 0xffff_0000);
    assert_eq!(m.faults()[0].kind, FaultKind::SharedOutOfBounds);
}

#[test]
fn local_memory_is_per_thread() {
    let prog = "
        S2R R1, SR_LANEID
        MOV R2, 0x3f0
        IADD3 R6, R1, 0x80, RZ
        STL [R2+0xc], R1
        STL.64 [R2], R6
        STL.U8 [R2+0x8], R6
        LDL R3, [R2+0xc]
        LDL.64 R4, [R2]
        LDL.S8 R8, [R2+0x8]
        LDL.U8 R9, [R2+0x8]
        ISETP.EQ.AND P0, PT, R1, 0x0, PT
        @P0 LDL R10, [R2+0x10]
        EXIT
    ";
    let m = run_with(prog, None, &[], one_warp(), vec![]);
    let s = m.final_states()[0];
    let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
    for l in 1..32 {
        assert_eq!(reg(3, l), l, "LDL lane {l}");
        // The pair R6:R7 = (0x80 + l, 0).
        assert_eq!((reg(4, l), reg(5, l)), (0x80 + l, 0), "LDL.64 lane {l}");
        // Byte 0x80 + l: sign-extended it is 0xffffff80 + l.
        assert_eq!(reg(8, l), 0xffff_ff80 + l, "LDL.S8 lane {l}");
        assert_eq!(reg(9, l), 0x80 + l, "LDL.U8 lane {l}");
    }
    // 0x400 is past the 1 KiB window: lane 0 faults.
    assert_eq!(s.faulted, 1);
    assert_eq!(m.faults()[0].kind, FaultKind::LocalOutOfBounds);
}

#[test]
fn scoreboarded_special_and_constant_reads_take_their_latency() {
    // Written codes: S2R and LDC set SB0 and SB1, CS2R waits on both and
    // reads the clock. Everything issues from cycle 0 one cycle apart, so
    // the wait ends when the later of the two lands: the LDC at cycle 1
    // plus `constant`, or the S2R at 0 plus `special`.
    let prog = "
        [B------:R-:W0:-:S01] S2R R0, SR_TID.X
        [B------:R-:W1:-:S01] LDC R1, c[0x0][0x0]
        [B01----:R-:W-:-:S01] CS2R R2, SR_CLOCKLO
        [B------:R-:W-:-:S01] EXIT
    ";
    let clock = |special: u32, constant: u32| {
        let mut c = MachineConfig::default();
        c.latency.special = special;
        c.latency.constant = constant;
        let m = run_on(c, prog, None, &[(0, 32)], one_warp(), vec![]);
        m.final_states()[0].regs[2 * 32]
    };
    // Defaults 20 and 20: the LDC lands at 21.
    assert_eq!(clock(20, 20), 21);
    // S2R 30 lands at 30, after the LDC's 1 + 5.
    assert_eq!(clock(30, 5), 30);
    assert_eq!(clock(3, 40), 41);
}

/// Coalesced stores and loads move a stretch of lanes at a time, a page
/// of global memory (1 KiB) at a time. The 32 words from word 240 span
/// bytes 960..1088, over the page boundary at 1024 (lanes 0..15 in one
/// page, 16..31 in the next); those from word 1008 span 4032..4160, over
/// the one at 4096. `RZ` stores zeros over the buffer's nonzero words, a
/// row stores its lanes, and a load into `RZ` changes nothing.
#[test]
fn coalesced_stretches_over_a_page_boundary_store_and_load_each_lane() {
    let prog = "
        S2R R1, SR_LANEID
        IMAD R2, R1, 4, c[0x0][0x160]
        STG.E [R2+0x3c0], RZ
        IADD3 R3, R1, 0x64, RZ
        STG.E [R2+0xfc0], R3
        LDG.E RZ, [R2+0x3c0]
        LDG.E R4, [R2+0xfc0]
        LDG.E R5, [R2+0x3c0]
        EXIT
    ";
    let mut buffers = buffer(1100);
    buffers[0].init = vec![0xaa; 1100 * 4];
    let m = run_with(prog, None, &[(0x160, BASE)], one_warp(), buffers);
    let word = |i: u32| m.global_word(BASE + 4 * i).expect("in the buffer");
    // 0x3c0 = 960 bytes: word 240. 0xfc0 = 4032 bytes: word 1008.
    for l in 0..32 {
        assert_eq!(word(240 + l), 0, "RZ stored by lane {l}");
        assert_eq!(word(1008 + l), 100 + l, "row stored by lane {l}");
    }
    // The words either side are as initialised: 0xaa in every byte.
    for i in [239, 272, 1007, 1040] {
        assert_eq!(word(i), 0xaaaa_aaaa, "word {i}");
    }
    let s = m.final_states()[0];
    let reg = |r: u32, l: u32| s.regs[(r * 32 + l) as usize];
    for l in 0..32 {
        assert_eq!(reg(4, l), 100 + l, "loaded row, lane {l}");
        assert_eq!(reg(5, l), 0, "loaded zeros, lane {l}");
    }
}
