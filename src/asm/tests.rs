//! Assembler tests: whole programs, derived control codes, errors.

use super::ir::*;
use super::*;

fn asm(text: &str) -> Program {
    match assemble(text, 4) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn asm_err(text: &str) -> AsmError {
    match assemble(text, 4) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn real_listing_syntax_is_accepted() {
    let p = asm(r#"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x00000a0000017a02 */
                                                                           /* 0x000fc40000000f00 */
        /*0010*/                   S2R R0, SR_TID.X ;
        /*0020*/                   ISETP.GE.AND P0, PT, R0, c[0x0][0x160], PT ;
        /*0030*/              @P0  EXIT ;
        /*0040*/                   IMAD.WIDE.U32 R2, R0, 0x4, R4 ;
        /*0050*/                   LDG.E.SYS R2, [R2.64] ;
        /*0060*/                   BRA `(.L_x_0) ;
        .L_x_0:
        /*0070*/                   FFMA R3, R2.reuse, -1.5, |R2| ;
        /*0080*/                   EXIT ;
    "#);
    assert_eq!(p.instrs.len(), 9);
    assert_eq!(
        p.instrs[3].guard,
        PredSrc {
            index: 0,
            negate: false
        }
    );
    assert_eq!(p.instrs[3].op, Op::Exit);
    assert_eq!(
        p.instrs[6].op,
        Op::Bra {
            target: 7,
            cond: PredSrc::TRUE
        }
    );
    assert_eq!(p.labels[0].name, ".L_x_0");
    assert_eq!(
        p.instrs[2].text,
        "ISETP.GE.AND P0, PT, R0, c[0x0][0x160], PT"
    );
    match p.instrs[7].op {
        Op::Ffma {
            b: Src::Imm(bits),
            c: Src::Reg(r),
            ..
        } => {
            assert_eq!(f32::from_bits(bits), -1.5);
            assert!(r.abs);
        }
        ref other => panic!("{other:?}"),
    }
    // R0..R5 named: R4/R5 as the IMAD.WIDE addend pair.
    assert_eq!(p.num_regs, 6);
}

#[test]
fn cuassembler_control_codes_are_kept() {
    let p = asm(
        "[R---:B------:R-:W2:Y:S04] LDG.E R2, [R4]\n[B--2---:R-:W-:-:S01] IMAD R3, R2, 2, RZ\nEXIT\n",
    );
    assert!(p.instrs[0].explicit_control);
    assert_eq!(p.instrs[0].control.write_barrier, Some(2));
    assert!(p.instrs[0].control.yield_hint);
    assert_eq!(p.instrs[1].control.wait_mask, 0b100);
    assert!(!p.instrs[2].explicit_control);
}

#[test]
fn derived_stalls_cover_the_alu_latency() {
    // ISETP writes P0, the next instruction's guard: with alu latency 4 the
    // ISETP stalls 4. FMUL reads the FADD's R2 two instructions later: the
    // FADD stalls 1, the MOV 3, so the FMUL issues 4 cycles after the FADD.
    let p = asm(
        "ISETP.LT.AND P0, PT, R0, 16, PT\n@P0 FADD R2, R1, 1.0\nMOV R5, R6\nFMUL R3, R2, R2\nEXIT\n",
    );
    let s: Vec<u8> = p.instrs.iter().map(|i| i.control.stall).collect();
    // ISETP@0 -> FADD@4 -> MOV@5 -> FMUL@8 (R2 ready 4+4) -> EXIT@9;
    // an unconditional EXIT has no successor to protect: stall 1.
    assert_eq!(s, vec![4, 1, 3, 1, 1]);
}

#[test]
fn derived_scoreboards_round_robin_and_wait_masks() {
    let p = asm(
        "LDG.E R2, [R10]\nLDG.E R3, [R11]\nMUFU.RCP R4, R1\nSTG.E [R12], R5\nFADD R6, R2, R3\nMOV R5, RZ\nEXIT\n",
    );
    let c: Vec<Control> = p.instrs.iter().map(|i| i.control).collect();
    assert_eq!(c[0].write_barrier, Some(0));
    assert_eq!(c[1].write_barrier, Some(1));
    assert_eq!(c[2].write_barrier, Some(2));
    // The store's sources are protected by a read barrier.
    assert_eq!(c[3].read_barrier, Some(3));
    assert_eq!(c[3].write_barrier, None);
    // FADD reads R2 (SB0) and R3 (SB1).
    assert_eq!(c[4].wait_mask, 0b11);
    // MOV overwrites R5, which the store may still be reading (SB3).
    assert_eq!(c[5].wait_mask, 0b1000);
}

#[test]
fn seventh_producer_recycles_scoreboard_zero() {
    let mut text = String::new();
    for r in 0..7 {
        text.push_str(&format!("LDG.E R{}, [R20]\n", r + 1));
    }
    text.push_str("FADD R10, R7, R7\nEXIT\n");
    let p = asm(&text);
    assert_eq!(p.instrs[6].control.write_barrier, Some(0));
    assert_eq!(p.instrs[7].control.wait_mask, 0b1);
}

#[test]
fn wait_masks_follow_dependences_across_branches() {
    // The load is consumed after a branch and in a loop.
    let p = asm("LDG.E R2, [R4]\n@P0 BRA skip\nMOV R1, RZ\nskip:\nFADD R3, R2, R2\nEXIT\n");
    assert_eq!(p.instrs[3].control.wait_mask, 0b1);
    assert_eq!(p.instrs[2].control.wait_mask, 0);
    // Loop: the load at the bottom is consumed at the top of the next trip.
    let p = asm("top:\nFADD R3, R2, R2\nLDG.E R2, [R4]\n@P0 BRA top\nEXIT\n");
    assert_eq!(p.instrs[0].control.wait_mask, 0b1);
}

#[test]
fn reconvergence_points_come_from_the_cfg() {
    let p = asm(
        "ISETP.LT.AND P0, PT, R0, 16, PT\n@P0 BRA else_\nMOV R1, 1\nBRA join\nelse_:\nMOV R1, 2\njoin:\nEXIT\n",
    );
    assert_eq!(p.reconvergence[1], 5);
}

#[test]
fn every_listed_opcode_assembles() {
    let text = "
        MOV R1, 0x10
        S2R R0, SR_LANEID
        SEL R2, R1, 3, P0
        IADD3 R3, P1, R1, -R2, RZ
        IADD3.X R4, R1, RZ, RZ, P1, !PT
        IMAD R5, R1, R2, 7
        IMAD.HI.U32 R5, R1, R2, RZ
        IMAD.MOV.U32 R6, RZ, RZ, c[0x0][0x0]
        IMUL R7, R1, 3
        ISETP.NE.U32.OR P2, P3, R1, R2, !P0
        LOP3.LUT R8, R1, R2, RZ, 0xc0, !PT
        LOP3.LUT P4, RZ, R1, 0x1, RZ, 0xc0, !PT
        SHL R9, R1, 2
        SHR.U32 R9, R1, 2
        IMNMX.U32 R10, R1, R2, PT
        IABS R10, R1
        POPC R11, R1
        LEA R12, P5, R1, R2, 0x2
        LEA.HI.X R13, R1, R2, R3, 0x2, P5
        FADD R14, R1, -R2
        FMUL R14, R14, 0.5
        FFMA R14, R14, 2, R1
        FSETP.GTU.AND P0, PT, R14, 1.0, PT
        FMNMX R15, R14, R1, !PT
        I2F R16, R1
        I2F.U32 R16, R1
        F2I.TRUNC.NTZ R17, R16
        F2I.FLOOR.U32 R17, R16
        MUFU.EX2 R18, R16
        MUFU.LG2 R18, R16
        MUFU.RCP R18, R16
        MUFU.RSQ R18, R16
        MUFU.SQRT R18, R16
        MUFU.SIN R18, R16
        MUFU.COS R18, R16
        LDG.E.64 R20, [R2.64+0x8]
        LDG.E.U8 R22, [R2]
        STG.E.128 [R2], R24
        LDS R23, [R1+0x40]
        STS.U16 [R1], R23
        SHFL.BFLY PT, R3, R2, 0x10, 0x1f
        VOTE.ANY R4, PT, P0
        VOTE.ALL P1, P0
        BSSY B0, join
        @P0 BRA join
        BREAK B0
        join:
        BSYNC B0
        WARPSYNC 0xffffffff
        WARPSYNC.ALL
        BAR.SYNC 0x0
        BAR.SYNC.DEFER_BLOCKING 0x0
        DEPBAR.LE SB0, 0x1
        NOP
        EXIT
    ";
    let p = asm(text);
    assert_eq!(p.instrs.len(), 54);
    assert!(matches!(
        p.instrs[35].op,
        Op::Ldg {
            d: 20,
            width: Width::B64,
            addr: MemRef {
                base: 2,
                offset: 8,
                wide: true,
                ubase: crate::asm::ir::URZ,
                scale: 1,
            }
        }
    ));
    assert!(matches!(p.instrs[52].op, Op::Nop));
    assert_eq!(p.num_regs, 28);
}

#[test]
fn unknown_opcode_points_at_it_and_suggests() {
    let e = asm_err("MOV R1, R2\n  FFMAA R1, R2, R3, R4\nEXIT\n");
    assert_eq!((e.line, e.column, e.len), (2, 3, 5));
    assert!(
        e.message.contains("unknown opcode `FFMAA`"),
        "{}",
        e.message
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean `FFMA`?"));
}

#[test]
fn errors_name_the_operand() {
    let e = asm_err("FADD R1, P0, R2\nEXIT\n");
    assert_eq!((e.line, e.column), (1, 10));
    assert!(e.message.contains("`P0`"), "{}", e.message);
    let e = asm_err("IADD3 R1, R2, R3\nEXIT\n");
    assert!(e.message.contains("more operands"), "{}", e.message);
    let e = asm_err("MOV R1, R2, R3, R4\nEXIT\n");
    assert!(e.message.contains("too many operands"), "{}", e.message);
    let e = asm_err("IADD3 R1, R2, 1.5, RZ\nEXIT\n");
    assert!(e.hint.unwrap().contains("hex"));
}

/// The immediate field is 32 bits: 0xffffffff and -2^31 are the ends of
/// its range, one past either is refused at the literal's column; a float
/// literal beyond f32 (or f64 for a DADD) is refused, INF is not.
#[test]
fn out_of_range_literals_are_refused_where_they_are_written() {
    let p = asm("IADD3 R1, R0, 0xffffffff, RZ\nIADD3 R2, R0, -2147483648, RZ\nEXIT\n");
    assert_eq!(p.instrs.len(), 3);
    for (text, col) in [
        ("IADD3 R1, R0, 0x100000000, RZ\nEXIT\n", 15),
        ("IADD3 R1, R0, -2147483649, RZ\nEXIT\n", 15),
        // 77 bits: the parser saturates, the range check still sees it.
        ("IADD3 R1, R0, 0x1fffffffffffffffffff, RZ\nEXIT\n", 15),
    ] {
        let e = asm_err(text);
        assert_eq!((e.line, e.column), (1, col), "{text}");
        assert!(e.message.contains("does not fit 32 bits"), "{}", e.message);
    }
    for text in [
        "FADD R1, R0, 1e999\nEXIT\n",
        "FADD R1, R0, 3.5e38\nEXIT\n",
        "DADD R2, R0, 1e999\nEXIT\n",
        "FADD R1, R0, 100000000000000000000000000000000000000000000\nEXIT\n",
    ] {
        let e = asm_err(text);
        assert_eq!((e.line, e.column), (1, 14), "{text}");
        assert!(
            e.message.contains("out of the range") || e.message.contains("too long"),
            "{text}: {}",
            e.message
        );
    }
    // 3.4e38 rounds to f32::MAX's neighbourhood and is kept; INF is spelled.
    asm("FADD R1, R0, 3.4e38\nFADD R2, R0, -INF\nDADD R2, R0, 1e300\nEXIT\n");
}

#[test]
fn missing_label_suggests_the_nearest() {
    let e = asm_err("@P0 BRA lop\nloop:\nEXIT\n");
    assert_eq!((e.line, e.column), (1, 9));
    assert!(e.message.contains("no label `lop`"));
    assert_eq!(e.hint.as_deref(), Some("did you mean `loop`?"));
}

#[test]
fn malformed_control_code_is_located() {
    let e = asm_err("EXIT\n  [B------:R-:W9:-:S01] MOV R1, R2\n");
    assert_eq!((e.line, e.column), (2, 3));
    assert!(e.message.contains("write barrier"), "{}", e.message);
}

#[test]
fn bad_modifiers_suggest_the_nearest() {
    let e = asm_err("ISETP.GT.ADN P0, PT, R1, R2, PT\nEXIT\n");
    assert!(
        e.message.contains("needs a combine") || e.message.contains("ADN"),
        "{}",
        e.message
    );
    let e = asm_err("ISETP.GT.AND.U23 P0, PT, R1, R2, PT\nEXIT\n");
    assert!(e.message.contains("`.U23`"), "{}", e.message);
    assert_eq!(e.hint.as_deref(), Some("did you mean `.U32`?"));
}

#[test]
fn falling_off_the_end_is_an_error() {
    let e = asm_err("MOV R1, R2\n@P0 EXIT\n");
    assert_eq!(e.line, 2);
    assert!(e.hint.unwrap().contains("EXIT"));
    let e = asm_err("// nothing\n");
    assert!(e.message.contains("no instructions"));
}

#[test]
fn duplicate_labels_and_unaligned_pairs() {
    let e = asm_err("a:\nNOP\na:\nEXIT\n");
    assert_eq!(e.line, 3);
    let e = asm_err("LDG.E.64 R3, [R2]\nEXIT\n");
    assert!(e.message.contains("aligned"), "{}", e.message);
}

#[test]
fn nvcc13_alu_and_f64_spellings_assemble() {
    // Lines as the committed listings in tests/kernels print them.
    let text = "
        SHF.R.U32.HI R3, RZ, 0x1f, R0
        SHF.R.S32.HI R3, RZ, 0x1f, R0
        SHF.L.W.U32.HI R13, R2, R15, R13
        SHF.R.U64 R3, R2, 0x1, R3
        SHF.L.U64.HI R3, R2, 0x3, R3
        PRMT R2, R0, 0x9910, RZ
        FLO.U32 R0, R2
        BREV R1, R2
        IADD R11, R7, -0x1
        IADD.64 R4, -R4, RZ
        VIADD R3, R3, 0x1
        VIMNMX.S32 R0, R2, R7, !PT
        VIMNMX.U32 R0, R2, R7, PT
        VIADDMNMX R4, R11.reuse, -R16.reuse, 0xb9600000, !PT
        PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0
        IMAD.X R9, RZ, 0x24924924, R9, P0
        LEA.HI.X.SX32 R3, R4, c[0x0][0x164], 0x1, P0
        HFMA2.MMA R17, -RZ, RZ, 0, 5.9604644775390625e-08
        HFMA2 R23, -RZ, RZ, 0, 5.9604644775390625e-05
        FADD.FTZ R7, -R6, -RZ
        FFMA.RP R1, R2, R3, R4
        FFMA.RM R1, R2, R3, R4
        DFMA R14, -R4, R12, 1
        DMUL.RP R10, R14, R10
        DMUL R2, R4, 8.98846567431157953865e+307
        DADD R4, R2, 2
        DSETP.NAN.AND P0, PT, R10, R10, PT
        DSETP.GT.AND P0, PT, R8, 100, PT
        F2F.F64.F32 R6, R2
        F2F.F32.F64 R4, R4
        I2F.F64 R10, R14
        I2F.F64.S64 R4, R6
        I2F.U32.RP R9, R12
        I2FP.F32.S32 R9, R10
        F2I.FTZ.U32.TRUNC.NTZ R5, R4
        MUFU.RCP64H R11, R7
        BSSY.RECONVERGENT B0, join
        join:
        BSYNC.RECONVERGENT B0
        YIELD
        EXIT
    ";
    let p = asm(text);
    assert_eq!(p.instrs.len(), 40);
    // DMUL's immediate is an f64 kept as its high word: 2^1023 is 0x7fe00000.
    match p.instrs[24].op {
        Op::Dmul {
            b: Src::Imm(hi),
            lit,
            ..
        } => assert_eq!((hi, lit), (0x7fe0_0000, 0b10)),
        ref other => panic!("{other:?}"),
    }
}

/// A `BSYNC` of a barrier nothing sets: an error at its line (3: the
/// text's first line is empty) naming the barrier; with `BSSY B1` on one
/// of the two paths into it the program loads (some path sets it).
#[test]
fn a_barrier_read_before_any_set_is_an_error() {
    let e = asm_err(
        "
        S2R R0, SR_TID.X
        BSYNC B1
        EXIT
    ",
    );
    assert_eq!((e.line, e.column), (3, 9), "{e}");
    assert!(e.message.contains("B1"), "{e}");
    assert!(e.hint.as_deref().unwrap_or("").contains("BSSY B1"), "{e}");
    // BREAK and BMOV into a register read the barrier too; BSSY B0 does
    // not set B2.
    let e = asm_err(
        "
        BSSY B0, join
        BMOV.32 R2, B2
        join:
        BSYNC B0
        EXIT
    ",
    );
    assert_eq!(e.line, 3, "{e}");
    let e = asm_err(
        "
        BREAK B3
        EXIT
    ",
    );
    assert_eq!(e.line, 2, "{e}");
    // One path sets B1 (the fall-through); the branch around it does not.
    asm("
        S2R R0, SR_TID.X
        ISETP.NE.AND P0, PT, R0, RZ, PT
        @P0 BRA skip
        BSSY B1, skip
        skip:
        BSYNC B1
        EXIT
    ");
    // Clearing an unset barrier (nvcc for sm_75, before each BSSY) and
    // setting one with BMOV are fine; padding after the end is not read.
    asm("
        BMOV.32.CLEAR RZ, B0
        BMOV.32 B1, R0
        BSYNC B1
        EXIT
        dead:
        BSYNC B2
        BRA dead
    ");
}
