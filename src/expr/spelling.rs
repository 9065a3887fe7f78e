//! "Did you mean" suggestions for misspelled names (keys, identifiers,
//! enum values), shared by the expression parser and the scenario loader.

/// The candidate closest to `word`, if one is close enough to be a likely
/// typo. Case differences alone always count as close (`r1` -> `R1`).
pub(crate) fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower = word.to_ascii_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for cand in candidates {
        if cand == word {
            continue;
        }
        if cand.eq_ignore_ascii_case(word) {
            return Some(cand);
        }
        let cand_lower = cand.to_ascii_lowercase();
        // Edit distance catches transpositions and dropped letters
        // (`warp_widht`, `ntd`); Jaro-Winkler catches long shared prefixes
        // (`max_warp_per_sm`). Either one being convincing is enough.
        let dist = strsim::damerau_levenshtein(&lower, &cand_lower);
        // A third of the longer name: `ntd` -> `ntid`, but not `x` -> `i`.
        let allowed = cand_lower.chars().count().max(lower.chars().count()) / 3;
        let jw = strsim::jaro_winkler(&lower, &cand_lower);
        let score = if dist <= allowed {
            2.0 - dist as f64 / 10.0
        } else if jw >= 0.88 {
            jw
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// `did you mean `x`?` for the closest candidate, if any.
pub(crate) fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    closest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_typos_and_case() {
        let keys = ["warp_width", "convergence", "taken_first", "schedulers"];
        assert_eq!(closest("warp_widht", keys), Some("warp_width"));
        assert_eq!(closest("Schedulers", keys), Some("schedulers"));
        assert_eq!(closest("sheduler", keys), Some("schedulers"));
        assert_eq!(closest("xyz", keys), None);
        assert_eq!(closest("r1", ["R1", "R2"]), Some("R1"));
        assert_eq!(closest("", keys), None);
        assert_eq!(closest("x", ["i", "tid"]), None);
        assert_eq!(closest("ntd", ["i", "ntid"]), Some("ntid"));
    }
}
