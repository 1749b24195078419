//! Arbitrary bytes as a roles file (up to the first NUL byte) and a transcript or
//! sealed transcript (after it), through `Roles::parse`, `read_graph_transcript` and
//! `build_graph`: never a panic; the same input gives the same graph; every edge
//! joins nodes of the graph; errors are one line.
#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use toolreplay_core::{GraphNode as Node, Roles, build_graph, read_graph_transcript};

fuzz_target!(|data: &[u8]| {
    let (roles, transcript) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&b""[..], data),
    };
    let roles = match Roles::parse(roles) {
        Ok(roles) => roles,
        Err(err) => {
            assert!(err.line >= 1, "lines are 1-based");
            assert!(!err.message.contains('\n'), "messages are one line");
            Roles::builtin()
        }
    };
    let transcript = match read_graph_transcript(transcript) {
        Ok(transcript) => transcript,
        Err(_) => return,
    };
    let built = build_graph(&transcript, &roles, None, &Default::default()).expect("a graph");
    assert_eq!(
        build_graph(&transcript, &roles, None, &Default::default()).expect("a graph"),
        built,
        "the same input gives the same graph"
    );
    let ids: BTreeSet<&str> = built
        .nodes
        .iter()
        .map(|node| match node {
            Node::Call(call) => call.id.as_str(),
            Node::Artifact(artifact) => artifact.id.as_str(),
            Node::Phase(phase) => phase.id.as_str(),
            Node::Request(request) => request.id.as_str(),
            Node::Claim(claim) => claim.id.as_str(),
        })
        .collect();
    for edge in &built.edges {
        assert!(ids.contains(edge.from.as_str()) && ids.contains(edge.to.as_str()));
    }
    assert_eq!(built.summary.calls, transcript.records.len() as u64);
});
