//! Every built-in scenario loads, runs to the end, and meets its `expect:`
//! block, whose numbers were worked out by hand (see each file's comments).

use warpstep::builtin;
use warpstep::report::Report;

#[test]
fn every_builtin_meets_its_expectations() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in builtin::names() {
        let sc = match builtin::resolve(name) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: does not load:\n{e}"));
                continue;
            }
        };
        assert!(!sc.expect.is_empty(), "{name} has no expect: block");
        let expect = sc.expect.clone();
        let mut m = sc.new_machine().expect("builds");
        if let Err(e) = m.run() {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        let mut r = Report::new(&sc, &m);
        if !r.check_expectations(&expect) {
            for e in r.expect.iter().flatten().filter(|e| !e.ok) {
                failures.push(format!(
                    "{name}: {} expected {} got {}",
                    e.key, e.expected, e.actual
                ));
            }
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} built-ins");
}

#[test]
fn every_builtin_accounts_one_reason_per_resident_warp_cycle() {
    for name in builtin::names() {
        let sc = builtin::resolve(name).expect("loads");
        let mut m = sc.new_machine().expect("builds");
        m.run().expect("runs");
        for r in m.warp_records() {
            assert_eq!(
                r.counters.stalls.total(),
                r.resident_cycles,
                "{name}: warp {} charged {} reason-cycles over {} resident cycles",
                r.warp,
                r.counters.stalls.total(),
                r.resident_cycles
            );
        }
    }
}
