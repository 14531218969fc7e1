//! Delta debugging (Zeller's ddmin) over a schedule's steps.

/// Shrinks `0..n` to a subset on which `fails` still holds, trying at most
/// `budget` candidate subsets: ddmin over complements with growing
/// granularity, then single-step removals until no single step can go
/// (1-minimal within the budget). `fails` is assumed to hold for `0..n`.
/// Deterministic: the same predicate gives the same subset.
pub fn minimize(n: usize, budget: usize, mut fails: impl FnMut(&[usize]) -> bool) -> Vec<usize> {
    let mut current: Vec<usize> = (0..n).collect();
    let mut tries = 0usize;
    let mut granularity = 2usize;
    while current.len() >= 2 && tries < budget {
        let chunk = current.len().div_ceil(granularity);
        let mut reduced = false;
        let mut start = 0;
        while start < current.len() && tries < budget {
            let end = (start + chunk).min(current.len());
            let complement: Vec<usize> = current[..start]
                .iter()
                .chain(&current[end..])
                .copied()
                .collect();
            tries += 1;
            if fails(&complement) {
                current = complement;
                granularity = (granularity - 1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if granularity >= current.len() {
                break;
            }
            granularity = (granularity * 2).min(current.len());
        }
    }
    // 1-minimality: drop single steps until none can go.
    let mut changed = true;
    while changed && tries < budget {
        changed = false;
        let mut i = 0;
        while i < current.len() && tries < budget {
            let mut candidate = current.clone();
            candidate.remove(i);
            tries += 1;
            if fails(&candidate) {
                current = candidate;
                changed = true;
            } else {
                i += 1;
            }
        }
    }
    if current.len() == 1 && tries < budget && fails(&[]) {
        current.clear();
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimize_finds_the_two_steps_that_matter() {
        let kept = minimize(60, 10_000, |s| s.contains(&7) && s.contains(&41));
        assert_eq!(kept, vec![7, 41]);
    }

    #[test]
    fn minimize_respects_its_budget() {
        let mut calls = 0;
        let kept = minimize(60, 5, |s| {
            calls += 1;
            s.contains(&7)
        });
        assert!(calls <= 5);
        assert!(kept.contains(&7));
    }
}
