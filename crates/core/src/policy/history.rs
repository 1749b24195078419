//! The rules that judge a call by the calls before it, budgets and flows, and what
//! is kept of those calls between one call and the next: a [`History`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::finding::{Budget, BudgetExceeded, FindingKind, FlowViolation};
use crate::graph::PolicyRole;

/// Call budgets: every call counts, whatever its response, allowed or denied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Budgets {
    /// The most calls in all.
    pub(crate) total: Option<u64>,
    /// The most calls of each named tool.
    pub(crate) per_tool: BTreeMap<String, u64>,
}

/// A flow rule: after any call to a source, no call to a sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Flow {
    /// The rule's name, unique in its policy.
    pub(crate) name: String,
    /// The untrusted sources.
    pub(crate) sources: Vec<String>,
    /// The sinks they must not reach.
    pub(crate) sinks: Vec<String>,
}

/// The flows of a policy, with an index from each tool named in them to the flows
/// it is a sink and a source of, so a call costs the same for a flow of ten tools
/// as for one of a million.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Flows {
    /// The flows in the policy's order.
    list: Vec<Flow>,
    /// By tool, the positions in `list` of the flows it is a sink of and a source
    /// of, ascending.
    roles: hashbrown::HashMap<String, Roles>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Roles {
    sink_of: Vec<usize>,
    source_of: Vec<usize>,
}

impl std::fmt::Debug for Flows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.list.fmt(f)
    }
}

impl Flows {
    /// Indexes `list`.
    pub(crate) fn new(list: Vec<Flow>) -> Flows {
        let mut roles: hashbrown::HashMap<String, Roles> = hashbrown::HashMap::default();
        for (at, flow) in list.iter().enumerate() {
            for (tools, sink) in [(&flow.sinks, true), (&flow.sources, false)] {
                for tool in tools {
                    let role = roles.entry(tool.clone()).or_default();
                    let positions = if sink {
                        &mut role.sink_of
                    } else {
                        &mut role.source_of
                    };
                    // A tool named twice in one list is one role.
                    if positions.last() != Some(&at) {
                        positions.push(at);
                    }
                }
            }
        }
        Flows { list, roles }
    }

    /// Whether a flow names a role (`role:fetch`) among its sources or sinks.
    pub(crate) fn names_roles(&self) -> bool {
        self.roles
            .keys()
            .any(|name| name.starts_with(PolicyRole::PREFIX))
    }

    /// The positions of the flows `tool`, or a tool of one of `roles`, is a sink of
    /// and a source of, ascending.
    fn positions(&self, tool: &str, roles: &[PolicyRole]) -> Option<std::borrow::Cow<'_, Roles>> {
        let own = self.roles.get(tool);
        if roles.is_empty() {
            return own.map(std::borrow::Cow::Borrowed);
        }
        let mut merged = own.cloned().unwrap_or_default();
        let mut any = own.is_some();
        for role in roles {
            if let Some(more) = self.roles.get(role.key()) {
                any = true;
                merged.sink_of.extend(&more.sink_of);
                merged.source_of.extend(&more.source_of);
            }
        }
        for list in [&mut merged.sink_of, &mut merged.source_of] {
            list.sort_unstable();
            list.dedup();
        }
        any.then_some(std::borrow::Cow::Owned(merged))
    }
}

/// What the budgets and flows of a policy keep of the calls so far: the number of
/// calls to each tool that has a budget of its own, and for each flow the most
/// recent call to one of its sources. Its size grows with the number of such tools
/// and flows, never with the number of calls. Kept by name, so a history read back
/// (it serialises with serde) against an edited policy counts what both name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct History {
    /// The calls to each tool with a budget of its own, by tool name.
    tool_calls: BTreeMap<String, u64>,
    /// The most recent call to a source of each flow, by flow name.
    flow_sources: BTreeMap<String, SourceCall>,
}

/// A call to a source of a flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SourceCall {
    index: u64,
    tool: String,
}

impl History {
    /// Takes the call at `index` (the calls before it are those taken so far) to
    /// `tool`, whose roles are `roles`, and adds its findings to `found`: the total
    /// budget, then the tool's budget, then its roles' budgets in `roles`' order,
    /// then the flows in the order of the policy (a flow naming the tool or one of
    /// its roles). A call that is both a sink and a source of a flow is checked
    /// before it counts as a source.
    pub(crate) fn take(
        &mut self,
        budgets: &Budgets,
        flows: &Flows,
        index: u64,
        (tool, roles): (&str, &[PolicyRole]),
        found: &mut Vec<FindingKind>,
    ) {
        // The call at index `i` is call `i + 1` in all.
        let call = index.saturating_add(1);
        if let Some(total) = budgets.total
            && call > total
        {
            found.push(FindingKind::BudgetExceeded(BudgetExceeded {
                budget: Budget::Total,
                call,
                limit: total,
            }));
        }
        let names = std::iter::once((tool, Budget::PerTool)).chain(
            roles
                .iter()
                .map(|role| (role.key(), Budget::PerRole(*role))),
        );
        for (name, budget) in names {
            let Some(&limit) = budgets.per_tool.get(name) else {
                continue;
            };
            let count = match self.tool_calls.get_mut(name) {
                Some(count) => count,
                None => self.tool_calls.entry(name.to_owned()).or_insert(0),
            };
            *count = count.saturating_add(1);
            if *count > limit {
                found.push(FindingKind::BudgetExceeded(BudgetExceeded {
                    budget,
                    call: *count,
                    limit,
                }));
            }
        }
        let Some(roles) = flows.positions(tool, roles) else {
            return;
        };
        // Flows are independent of one another (their names are unique), so every
        // sink is checked before the call counts as a source of any flow.
        for &at in &roles.sink_of {
            let flow = &flows.list[at];
            if let Some(source) = self.flow_sources.get(&flow.name) {
                found.push(FindingKind::FlowViolation(FlowViolation {
                    flow: flow.name.as_str().into(),
                    source: source.index,
                    source_tool: source.tool.as_str().into(),
                }));
            }
        }
        for &at in &roles.source_of {
            let flow = &flows.list[at];
            match self.flow_sources.get_mut(&flow.name) {
                Some(source) => {
                    source.index = index;
                    source.tool.clear();
                    source.tool.push_str(tool);
                }
                None => {
                    self.flow_sources.insert(
                        flow.name.clone(),
                        SourceCall {
                            index,
                            tool: tool.to_owned(),
                        },
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Budgets, Flow, Flows, History};

    #[test]
    fn budgets_and_flows() {
        let budgets = Budgets {
            total: Some(3),
            per_tool: [("fetch".to_owned(), 1)].into_iter().collect(),
        };
        let flows = Flows::new(vec![Flow {
            name: "f".to_owned(),
            sources: vec!["fetch".to_owned()],
            sinks: vec!["send".to_owned(), "fetch".to_owned()],
        }]);
        let mut history = History::default();
        let mut names = Vec::new();
        for (i, tool) in ["send", "fetch", "read", "fetch", "send"]
            .iter()
            .enumerate()
        {
            let mut found = Vec::new();
            history.take(&budgets, &flows, i as u64, (tool, &[]), &mut found);
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
        // Only tools with a budget of their own and flows with a source seen are kept.
        assert_eq!(
            serde_json::to_string(&history).unwrap(),
            r#"{"tool_calls":{"fetch":2},"flow_sources":{"f":{"index":3,"tool":"fetch"}}}"#
        );
    }
}
