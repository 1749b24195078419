//! The rules on the number and order of calls, which only the walk in input order
//! can check: budgets and flows.

use std::collections::{BTreeMap, HashMap};

use crate::finding::{Budget, BudgetExceeded, FindingKind, FlowViolation};

/// Call budgets: every recorded call counts, whatever its response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budgets {
    /// The most calls in all.
    pub total: Option<u64>,
    /// The most calls of each named tool.
    pub per_tool: BTreeMap<String, u64>,
}

/// A flow rule: after any call to a source, no call to a sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// The rule's name.
    pub name: String,
    /// The untrusted sources.
    pub sources: Vec<String>,
    /// The sinks they must not reach.
    pub sinks: Vec<String>,
}

/// The state of the walk: counts and the most recent source of each flow.
#[derive(Debug)]
pub struct Sequence {
    budgets: Budgets,
    flows: Vec<Flow>,
    total: u64,
    counts: HashMap<String, u64>,
    /// For each flow, the index and tool of the most recent call to one of its sources.
    last_source: Vec<Option<(u64, String)>>,
}

impl Sequence {
    /// A walk with these rules.
    pub fn new(budgets: Budgets, flows: Vec<Flow>) -> Sequence {
        let last_source = vec![None; flows.len()];
        Sequence {
            budgets,
            flows,
            total: 0,
            counts: HashMap::new(),
            last_source,
        }
    }

    /// Takes the next call, and adds its findings to `found`: the total budget, then
    /// the tool's budget, then the flows in the order of the policy. A call that is
    /// both a sink and a source of a flow is checked before it counts as a source.
    pub fn observe(&mut self, index: u64, tool: &str, found: &mut Vec<FindingKind>) {
        self.total += 1;
        if let Some(total) = self.budgets.total
            && self.total > total
        {
            found.push(FindingKind::BudgetExceeded(BudgetExceeded {
                budget: Budget::Total,
                call: self.total,
                limit: total,
            }));
        }
        if let Some(&max) = self.budgets.per_tool.get(tool) {
            let count = match self.counts.get_mut(tool) {
                Some(count) => count,
                None => self.counts.entry(tool.to_owned()).or_insert(0),
            };
            *count += 1;
            if *count > max {
                found.push(FindingKind::BudgetExceeded(BudgetExceeded {
                    budget: Budget::PerTool,
                    call: *count,
                    limit: max,
                }));
            }
        }
        for (flow, last) in self.flows.iter().zip(self.last_source.iter_mut()) {
            if flow.sinks.iter().any(|s| s == tool)
                && let Some((source, source_tool)) = last
            {
                found.push(FindingKind::FlowViolation(FlowViolation {
                    flow: flow.name.as_str().into(),
                    source: *source,
                    source_tool: source_tool.as_str().into(),
                }));
            }
            if flow.sources.iter().any(|s| s == tool) {
                *last = Some((index, tool.to_owned()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Budgets, Flow, Sequence};
    use crate::finding::FindingKind;

    #[test]
    fn budgets_and_flows() {
        let mut seq = Sequence::new(
            Budgets {
                total: Some(3),
                per_tool: [("fetch".to_owned(), 1)].into_iter().collect(),
            },
            vec![Flow {
                name: "f".to_owned(),
                sources: vec!["fetch".to_owned()],
                sinks: vec!["send".to_owned(), "fetch".to_owned()],
            }],
        );
        let mut names = Vec::new();
        for (i, tool) in ["send", "fetch", "read", "fetch", "send"]
            .iter()
            .enumerate()
        {
            let mut found = Vec::new();
            seq.observe(i as u64, tool, &mut found);
            names.push(
                found
                    .iter()
                    .map(|f| (f.name(), f.related_index()))
                    .collect::<Vec<_>>(),
            );
        }
        assert_eq!(names[0], []);
        assert_eq!(names[1], []);
        assert_eq!(names[2], []);
        assert_eq!(
            names[3],
            [
                ("budget-exceeded", None),
                ("budget-exceeded", None),
                ("flow-violation", Some(1))
            ]
        );
        assert_eq!(
            names[4],
            [("budget-exceeded", None), ("flow-violation", Some(3))]
        );
        let _ = FindingKind::PermissionOverreach;
    }
}
