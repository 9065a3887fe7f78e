//! Listings as the CUDA tools print them, loaded as `program:`: the kernel
//! assembles at its listing lines, runs with the control codes its hex
//! words encode, and `check` reports every error of the file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use warpstep::scenario::{Origin, Scenario};

const BIN: &str = env!("CARGO_BIN_EXE_warpstep");

fn warpstep<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the warpstep binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("listing_load")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `program: |` holding `listing`, indented by two.
fn scenario_with(head: &str, listing: &str) -> String {
    let mut s = String::from(head);
    s.push_str("program: |\n");
    for l in listing.lines() {
        s.push_str("  ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A cuobjdump-style sm_90 listing, trimmed by hand to opcodes the
/// simulator models. The high words encode the control codes written in
/// the comments on the right (fields per src/asm/listing/control.rs: stall
/// in bits 41..44, yield 45 (0 = set), write barrier 46..48, read barrier
/// 49..51, wait mask 52..57; 7 = no barrier).
const SMALL: &str = "\
\tcode for sm_90
\t\tFunction : _Z4testPf
\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"
        /*0000*/                   S2R R0, SR_TID.X ;                   /* 0x0000000000007919 */
                                                                       /* 0x000fe80000002100 */
        /*0010*/                   MOV R3, 0x7f00 ;                     /* 0x00007f0000037802 */
                                                                       /* 0x000fe20000000f00 */
        /*0020*/                   IMAD R2, R0, 0x4, c[0x0][0x160] ;    /* 0x0000580000027a24 */
                                                                       /* 0x000fe800078e02ff */
        /*0030*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;  /* 0x000000100000780c */
                                                                       /* 0x000fe80003f06270 */
        /*0040*/               @P0 EXIT ;                               /* 0x000000000000094d */
                                                                       /* 0x000fe20003800000 */
        /*0050*/                   LDG.E R5, desc[UR4][R2.64] ;         /* 0x0000000402057981 */
                                                                       /* 0x000ea2000c1e1900 */
        /*0060*/                   FADD R5, R5, 1 ;                     /* 0x3f80000005057421 */
                                                                       /* 0x004fe80000000000 */
        /*0070*/                   STG.E desc[UR4][R2.64], R5 ;         /* 0x0000000502007986 */
                                                                       /* 0x000fe2000c101904 */
        /*0080*/                   EXIT ;                               /* 0x000000000000794d */
                                                                       /* 0x000fea0003800000 */
        /*0090*/                   BRA 0x90 ;                           /* 0xfffffffc00fc7947 */
                                                                       /* 0x000fe0000383ffff */
        /*00a0*/                   NOP ;                                /* 0x0000000000007918 */
                                                                       /* 0x000fe00000000000 */
        /*00b0*/                   NOP ;                                /* 0x0000000000007918 */
                                                                       /* 0x000fe00000000000 */
\t\t..........
";

const SMALL_HEAD: &str = "name: a trimmed sm_90 listing
launch:
  threads: 32
memory:
  data: {type: f32, len: 32, init: \"i\"}
constants:
  0x160: data
";

fn load(text: &str) -> Scenario {
    match Scenario::from_text(text, Origin::File("t.yaml".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn load_err(text: &str) -> String {
    match Scenario::from_text(text, Origin::File("t.yaml".into())) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_listing_loads_with_its_decoded_control_codes() {
    let sc = load(&scenario_with(SMALL_HEAD, SMALL));
    let p = &sc.program;
    // 10 instructions to the self-branch at 0x90; the 2 NOPs after it are
    // padding, left out.
    assert_eq!(p.instrs.len(), 10);
    assert_eq!(p.arch, Some(90));
    let info = sc.listing.as_ref().expect("a listing");
    assert_eq!(info.kernel, "_Z4testPf");
    assert_eq!(info.padding, 2);
    assert_eq!(info.decoded, 10);
    assert!(p.instrs.iter().all(|i| i.explicit_control));
    // The codes are the encoded ones, not derived: the S2R stalls 4 and
    // sets no scoreboard (a derived code would not differ there, but the
    // LDG's W2 and the FADD's wait on SB2 would be W0 / B0 derived).
    let shown: Vec<String> = p.instrs.iter().map(|i| i.control.to_string()).collect();
    assert_eq!(shown[0], "[B------:R-:W-:-:S04]");
    assert_eq!(shown[5], "[B------:R-:W2:-:S01]");
    assert_eq!(shown[6], "[B--2---:R-:W-:-:S04]");
    assert_eq!(shown[8], "[B------:R-:W-:-:S05]");
    // Listing lines: the scenario's program starts at file line 9, the
    // listing's S2R is its line 4 (after the three header lines).
    assert_eq!(p.instrs[0].line, 4);
    assert_eq!(p.instrs[5].line, 14);
    assert_eq!(p.instrs[5].text, "LDG.E R5, desc[UR4][R2.64]");
    // `BRA 0x90` branches to itself: instruction 9.
    assert_eq!(p.instrs[9].op, warpstep::asm::ir::Op::Bra { target: 9 });
}

#[test]
fn a_listing_runs_with_the_cycles_its_codes_give() {
    let dir = scratch("run");
    let path = dir.join("small.yaml");
    std::fs::write(&path, scenario_with(SMALL_HEAD, SMALL)).expect("write");
    let o = warpstep(&[
        "run".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // By hand, from the stall counts and the 400-cycle global latency:
    // S2R 0 (S04), MOV 4 (S01), IMAD 5 (S04), ISETP 9 (S04), @P0 EXIT 13
    // (S01; lanes 16..31 leave), LDG 14 (S01, W2: 16 lanes, one 128-byte
    // line, done at 414), FADD waits on SB2 until 414 (S04), STG 418
    // (S01), EXIT 419: 9 issued.
    assert_eq!(r["issued"], 9, "{r}");
    assert_eq!(r["cycles"], 420, "{r}");
    assert_eq!(r["memory"]["global_requests"], 2, "{r}");
}
