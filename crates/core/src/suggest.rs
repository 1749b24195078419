//! "Did you mean": the closest of some names to a misspelt one, by edit distance, as
//! cargo and clap suggest.

/// The candidate nearest to `word` by Levenshtein distance, when it is near enough
/// to be a likely misspelling: at most a third of the word's length (at least 1)
/// edits away. Ties go to the first candidate.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(word, c, limit), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The Levenshtein distance of `a` and `b` in characters, or `limit + 1` when it is
/// beyond `limit` (names can be long: the lengths alone rule most out).
fn distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit || a.len() > 256 || b.len() > 256 {
        return limit + 1;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn near_names_are_suggested_and_far_ones_not() {
        let names = ["read_file", "write_file", "search"];
        assert_eq!(closest("raed_file", names), Some("read_file"));
        assert_eq!(closest("serch", names), Some("search"));
        assert_eq!(closest("budget", ["budgets", "flows"]), Some("budgets"));
        assert_eq!(closest("delete", names), None);
        assert_eq!(closest("search", names), None);
    }
}
