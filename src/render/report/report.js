(function () {
  'use strict';
  var PAGE = 200;
  var errorCount = 0;

  function fail(message) {
    errorCount += 1;
    var box = document.getElementById('errors');
    var p = document.createElement('p');
    p.textContent = 'Error: ' + message;
    box.appendChild(p);
    box.hidden = false;
    document.body.setAttribute('data-errors', String(errorCount));
  }
  window.addEventListener('error', function (event) {
    fail(event.message || 'a script error');
  });
  document.addEventListener('securitypolicyviolation', function (event) {
    fail('blocked by the content security policy: ' + event.violatedDirective + ' ' + (event.blockedURI || ''));
  });

  // Elements are made from text only: data never becomes markup.
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (attrs[key] !== null && attrs[key] !== undefined) {
          node.setAttribute(key, String(attrs[key]));
        }
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) {
        return;
      }
      node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }
  function plural(n, one, many) {
    return n + ' ' + (n === 1 ? one : many);
  }

  var data = JSON.parse(document.getElementById('data').textContent);
  var graph = data.graph;
  var summary = graph.summary;
  var calls = [];
  var artifacts = [];
  var phases = [];
  var artifactById = {};
  var phaseOfCall = {};
  var outgoing = {};
  var incoming = {};

  graph.nodes.forEach(function (node) {
    if (node.type === 'call') {
      calls.push(node);
    } else if (node.type === 'artifact') {
      artifacts.push(node);
      artifactById[node.id] = node;
    } else if (node.type === 'phase') {
      phases.push(node);
      node.calls.forEach(function (index) {
        phaseOfCall[index] = node;
      });
    }
  });
  graph.edges.forEach(function (edge) {
    (outgoing[edge.from] = outgoing[edge.from] || []).push(edge);
    (incoming[edge.to] = incoming[edge.to] || []).push(edge);
  });

  function callNumber(id) {
    return Number(id.slice(1));
  }

  // The canonical JSON text, indented; numbers and strings are kept exactly as written.
  function pretty(text) {
    var out = [];
    var depth = 0;
    var inString = false;
    var escaped = false;
    var pad = function () {
      return '\n' + '  '.repeat(depth);
    };
    for (var i = 0; i < text.length; i += 1) {
      var c = text[i];
      if (inString) {
        out.push(c);
        if (escaped) {
          escaped = false;
        } else if (c === '\\') {
          escaped = true;
        } else if (c === '"') {
          inString = false;
        }
      } else if (c === '"') {
        inString = true;
        out.push(c);
      } else if (c === '{' || c === '[') {
        var close = c === '{' ? '}' : ']';
        if (text[i + 1] === close) {
          out.push(c + close);
          i += 1;
        } else {
          depth += 1;
          out.push(c + pad());
        }
      } else if (c === '}' || c === ']') {
        depth = Math.max(0, depth - 1);
        out.push(pad() + c);
      } else if (c === ',') {
        out.push(',' + pad());
      } else if (c === ':') {
        out.push(': ');
      } else {
        out.push(c);
      }
    }
    return out.join('');
  }

  function phaseTag(phase) {
    var name = phase || 'no role';
    return el('span', { class: 'tag tag-' + (phase || 'none') }, [name]);
  }
  function findingBadge(call) {
    if (!call.findings.length) {
      return null;
    }
    return el('span', { class: 'badge' }, ['\u26a0 ' + plural(call.findings.length, 'finding', 'findings')]);
  }
  function callButton(index, extra) {
    var call = calls[index];
    var label = [el('span', { class: 'idx' }, ['#' + index]), ' ', el('span', { class: 'tool' }, [call.tool])];
    return el('button', {
      type: 'button',
      class: 'call',
      'data-call': index,
      'aria-label': 'Call ' + index + ': ' + call.tool + (call.findings.length ? ', ' + plural(call.findings.length, 'finding', 'findings') : '') + (extra ? ', ' + extra : '')
    }, label.concat([' ', phaseTag(call.phase), findingBadge(call), extra ? el('span', { class: 'rule' }, [' ' + extra]) : null]));
  }
  function artifactButton(id, extra) {
    var artifact = artifactById[id];
    return el('button', {
      type: 'button',
      class: 'artifact',
      'data-artifact': id,
      'aria-label': 'Artifact ' + artifact.kind + ' ' + artifact.name + (extra ? ', ' + extra : '')
    }, [el('span', { class: 'tag tag-none' }, [artifact.kind]), ' ', el('span', { class: 'name' }, [artifact.name]), extra ? el('span', { class: 'rule' }, [' ' + extra]) : null]);
  }

  // Summary.
  function table(caption, headers, rows, id) {
    return el('table', { id: id }, [
      el('caption', null, [caption]),
      el('thead', null, [el('tr', null, headers.map(function (h) { return el('th', { scope: 'col' }, [h]); }))]),
      el('tbody', null, rows.map(function (row) {
        return el('tr', null, row.map(function (cell, i) {
          return el(i === 0 ? 'th' : 'td', i === 0 ? { scope: 'row' } : { class: 'num' }, [cell]);
        }));
      }))
    ]);
  }
  function renderSummary() {
    var body = document.getElementById('summary-body');
    var chain = summary.chain;
    var chainText = 'not sealed';
    if (chain && chain.status === 'intact') {
      chainText = 'intact, head ' + chain.head;
    } else if (chain) {
      chainText = 'BROKEN at link ' + chain.first_broken + ': the digests below are as written, not verified';
    }
    var divergence = summary.divergence === null ? 'none' : callButton(summary.divergence);
    var facts = [
      ['Calls', el('span', { id: 'sum-calls' }, [String(summary.calls)])],
      ['Tools', el('span', { id: 'sum-tools' }, [String(Object.keys(summary.tools).length)])],
      ['Findings', el('span', { id: 'sum-findings' }, [String(summary.findings)])],
      ['Divergence', el('span', { id: 'sum-divergence' }, [divergence])],
      ['Chain', el('span', { id: 'sum-chain' }, [chainText])],
      ['Scope', el('span', { id: 'sum-scope' }, [summary.scope_agent === null ? 'none given' : 'agent ' + summary.scope_agent])],
      ['Artifacts', el('span', { id: 'sum-artifacts' }, [String(artifacts.length)])],
      ['Phases', el('span', { id: 'sum-phases' }, [String(phases.length)])]
    ];
    var dl = el('dl', { class: 'facts' }, []);
    facts.forEach(function (fact) {
      dl.appendChild(el('dt', null, [fact[0]]));
      dl.appendChild(el('dd', null, [fact[1]]));
    });
    body.appendChild(dl);
    var entries = function (map) {
      return Object.keys(map).map(function (key) { return [key, String(map[key])]; });
    };
    var tables = el('div', { class: 'summary-tables' }, [
      table('Calls by tool', ['Tool', 'Calls'], entries(summary.tools), 'sum-by-tool'),
      table('Findings by kind', ['Kind', 'Findings'], entries(summary.findings_by_kind), 'sum-findings-by-kind'),
      table('Findings by tool', ['Tool', 'Findings'], entries(summary.findings_by_tool), 'sum-findings-by-tool')
    ]);
    body.appendChild(tables);
  }

  // Paged lists: PAGE items at a time, and a button for more.
  function paged(list, more, items, render, noun) {
    var shown = 0;
    clear(list);
    clear(more);
    function next() {
      var end = Math.min(items.length, shown + PAGE);
      var fragment = document.createDocumentFragment();
      for (var i = shown; i < end; i += 1) {
        fragment.appendChild(render(items[i]));
      }
      list.appendChild(fragment);
      shown = end;
      clear(more);
      if (shown < items.length) {
        var button = el('button', { type: 'button', class: 'more' }, ['Show ' + Math.min(PAGE, items.length - shown) + ' more ' + noun + ' (' + (items.length - shown) + ' not shown)']);
        button.addEventListener('click', function () {
          var first = shown;
          next();
          var target = list.children[first] && list.children[first].querySelector('button');
          if (target) {
            target.focus();
          }
        });
        more.appendChild(button);
      }
    }
    next();
  }

  // Phases.
  function renderPhases() {
    paged(document.getElementById('phase-list'), document.getElementById('phase-more'), phases, function (phase) {
      var count = 0;
      phase.calls.forEach(function (index) { count += calls[index].findings.length; });
      var first = phase.calls[0];
      var last = phase.calls[phase.calls.length - 1];
      var listId = 'phase-calls-' + phase.id;
      var button = el('button', {
        type: 'button',
        class: 'phase wide',
        'aria-expanded': 'false',
        'aria-controls': listId,
        'data-phase': phase.id
      }, [phaseTag(phase.phase), ' ', first === last ? 'call ' + first : 'calls ' + first + '\u2013' + last, ' \u00b7 ' + plural(phase.calls.length, 'call', 'calls'), count ? el('span', { class: 'badge' }, ['\u26a0 ' + plural(count, 'finding', 'findings')]) : null]);
      var inner = el('ol', { id: listId, class: 'plain phase-calls', hidden: '' }, []);
      return el('li', null, [button, inner]);
    }, 'phases');
  }
  function togglePhase(button) {
    var inner = document.getElementById(button.getAttribute('aria-controls'));
    var open = button.getAttribute('aria-expanded') === 'true';
    if (!open && !inner.firstChild) {
      var phase = phases[callNumber(button.getAttribute('data-phase'))];
      phase.calls.forEach(function (index) {
        inner.appendChild(el('li', null, [callButton(index)]));
      });
    }
    button.setAttribute('aria-expanded', open ? 'false' : 'true');
    inner.hidden = open;
  }

  // Calls, filtered.
  function fillFilters() {
    var tool = document.getElementById('filter-tool');
    tool.appendChild(el('option', { value: '' }, ['All tools (' + Object.keys(summary.tools).length + ')']));
    Object.keys(summary.tools).forEach(function (name) {
      tool.appendChild(el('option', { value: name }, [name + ' (' + summary.tools[name] + ')']));
    });
    var kind = document.getElementById('filter-kind');
    kind.appendChild(el('option', { value: '' }, ['Any or none']));
    kind.appendChild(el('option', { value: '*' }, ['Any finding (' + summary.findings + ')']));
    Object.keys(summary.findings_by_kind).forEach(function (name) {
      kind.appendChild(el('option', { value: name }, [name + ' (' + summary.findings_by_kind[name] + ')']));
    });
    tool.addEventListener('change', renderCalls);
    kind.addEventListener('change', renderCalls);
  }
  function renderCalls() {
    var tool = document.getElementById('filter-tool').value;
    var kind = document.getElementById('filter-kind').value;
    var matching = calls.filter(function (call) {
      if (tool && call.tool !== tool) {
        return false;
      }
      if (kind === '*') {
        return call.findings.length > 0;
      }
      if (kind) {
        return call.findings.some(function (f) { return f.kind === kind; });
      }
      return true;
    });
    document.getElementById('calls-count').textContent = plural(matching.length, 'call matches', 'calls match') + ' the filters.';
    paged(document.getElementById('call-list'), document.getElementById('call-more'), matching, function (call) {
      return el('li', null, [callButton(call.index)]);
    }, 'calls');
  }

  // Artifacts.
  function lineageCounts(id) {
    var used = 0;
    var produced = 0;
    var checked = 0;
    (incoming[id] || []).forEach(function (edge) {
      if (edge.type === 'uses') { used += 1; }
      if (edge.type === 'produces') { produced += 1; }
    });
    (outgoing[id] || []).forEach(function (edge) {
      if (edge.type === 'checked_by') { checked += 1; }
    });
    return 'used ' + used + ' \u00b7 produced ' + produced + ' \u00b7 checked ' + checked;
  }
  function renderArtifacts() {
    paged(document.getElementById('artifact-list'), document.getElementById('artifact-more'), artifacts, function (artifact) {
      return el('li', null, [artifactButton(artifact.id, lineageCounts(artifact.id))]);
    }, 'artifacts');
  }

  // Details.
  function edgeList(title, id, edges, render) {
    if (!edges.length) {
      return null;
    }
    var list = el('ul', { class: 'plain' }, []);
    var more = el('div', null, []);
    paged(list, more, edges, function (edge) { return el('li', null, [render(edge)]); }, 'edges');
    return el('div', { id: id }, [el('h3', null, [title + ' (' + edges.length + ')']), list, more]);
  }
  function ofType(edges, type) {
    return (edges || []).filter(function (edge) { return edge.type === type; });
  }
  function via(edge) {
    var parts = [edge.rule];
    if (edge.argument) {
      parts.push(edge.argument);
    }
    if (edge.via && artifactById[edge.via]) {
      parts.push('names ' + artifactById[edge.via].name);
    } else if (edge.via) {
      parts.push(edge.via);
    }
    return '(' + parts.join(', ') + ')';
  }
  function fieldBlock(title, id, text, total) {
    var note = total > text.length ? el('p', { class: 'hint' }, ['Shown: the first ' + text.length + ' of ' + total + ' bytes of the canonical JSON.']) : null;
    return el('div', null, [el('h3', null, [title]), note, el('pre', { id: id, tabindex: '0' }, [pretty(text)])]);
  }
  function showCall(index) {
    var call = calls[index];
    var record = data.records[index];
    var body = document.getElementById('detail-body');
    document.getElementById('detail-title').textContent = 'Call ' + index + ': ' + call.tool;
    clear(body);
    var facts = el('dl', { class: 'facts', id: 'detail-facts' }, []);
    var phase = phaseOfCall[index];
    [
      ['Index', String(call.index)],
      ['Line', String(call.line)],
      ['Role', call.action === null ? 'none: no artifact edges' : call.action],
      ['Phase', phase ? el('button', { type: 'button', 'data-phase-link': phase.id, 'aria-label': 'Phase ' + phase.id + ': ' + phase.phase + ', ' + plural(phase.calls.length, 'call', 'calls') }, [phaseTag(phase.phase), ' ' + phase.id + ' \u00b7 ' + plural(phase.calls.length, 'call', 'calls')]) : 'none'],
      ['Digest', call.digest === undefined ? 'not sealed' : call.digest]
    ].forEach(function (fact) {
      facts.appendChild(el('dt', null, [fact[0]]));
      facts.appendChild(el('dd', null, [fact[1]]));
    });
    body.appendChild(facts);
    var findings = el('div', { id: 'detail-findings' }, [el('h3', null, ['Findings (' + call.findings.length + ')'])]);
    if (!call.findings.length) {
      findings.appendChild(el('p', null, ['None.']));
    }
    call.findings.forEach(function (finding) {
      findings.appendChild(el('div', { class: 'finding' }, [
        el('strong', null, ['\u26a0 ' + finding.kind]), ' (' + finding.audit + '): ' + finding.message,
        finding.related === undefined ? null : el('span', null, [' ', callButton(finding.related, 'related call')])
      ]));
    });
    body.appendChild(findings);
    var out = outgoing[call.id] || [];
    var into = incoming[call.id] || [];
    var toArtifact = function (edge) { return artifactButton(edge.to, via(edge)); };
    var fromArtifact = function (edge) { return artifactButton(edge.from, via(edge)); };
    var toCall = function (edge) { return callButton(callNumber(edge.to), via(edge)); };
    var fromCall = function (edge) { return callButton(callNumber(edge.from), via(edge)); };
    // The first check of each artifact this call produced, after it.
    var checkedLater = [];
    ofType(out, 'produces').forEach(function (produced) {
      var first = null;
      ofType(outgoing[produced.to], 'checked_by').forEach(function (edge) {
        var at = callNumber(edge.to);
        if (at > index && (first === null || at < callNumber(first.to))) {
          first = edge;
        }
      });
      if (first && checkedLater.indexOf(first) < 0) {
        checkedLater.push(first);
      }
    });
    [
      edgeList('Uses', 'detail-uses', ofType(out, 'uses'), toArtifact),
      edgeList('Produces', 'detail-produces', ofType(out, 'produces'), toArtifact),
      edgeList('What it produced is checked by', 'detail-checked-by', checkedLater, function (edge) {
        return callButton(callNumber(edge.to), '(' + edge.rule + ', checks ' + artifactById[edge.from].name + ')');
      }),
      edgeList('Checks', 'detail-checks', ofType(into, 'checked_by'), fromArtifact),
      edgeList('Informs later calls', 'detail-informs', ofType(out, 'informs'), toCall),
      edgeList('Informed by', 'detail-informed-by', ofType(into, 'informs'), fromCall),
      edgeList('Repeats', 'detail-repeats', ofType(out, 'repeats'), toCall),
      edgeList('Repeated by', 'detail-repeated-by', ofType(into, 'repeats'), fromCall),
      edgeList('Diverges from', 'detail-diverges', ofType(out, 'diverges'), toCall),
      edgeList('Diverged from by', 'detail-diverged-by', ofType(into, 'diverges'), fromCall),
      edgeList('Flows to', 'detail-flows-to', ofType(out, 'flows'), toCall),
      edgeList('Flows from', 'detail-flows-from', ofType(into, 'flows'), fromCall)
    ].forEach(function (part) {
      if (part) {
        body.appendChild(part);
      }
    });
    body.appendChild(fieldBlock('Arguments', 'detail-args', record[0], record[2]));
    body.appendChild(fieldBlock('Response', 'detail-response', record[1], record[3]));
  }
  function showArtifact(id) {
    var artifact = artifactById[id];
    var body = document.getElementById('detail-body');
    document.getElementById('detail-title').textContent = 'Artifact ' + artifact.id + ': ' + artifact.kind + ' ' + artifact.name;
    clear(body);
    var into = incoming[id] || [];
    var out = outgoing[id] || [];
    var named = [];
    graph.edges.forEach(function (edge) {
      if (edge.type === 'informs' && edge.via === id) {
        named.push(edge);
      }
    });
    var fromCall = function (edge) { return callButton(callNumber(edge.from), via(edge)); };
    var toCall = function (edge) { return callButton(callNumber(edge.to), via(edge)); };
    var parts = [
      edgeList('Used by', 'lineage-used', ofType(into, 'uses'), fromCall),
      edgeList('Produced by', 'lineage-produced', ofType(into, 'produces'), fromCall),
      edgeList('Checked by', 'lineage-checked', ofType(out, 'checked_by'), toCall),
      edgeList('Named in the responses of', 'lineage-named', named, fromCall)
    ];
    var any = false;
    parts.forEach(function (part) {
      if (part) {
        any = true;
        body.appendChild(part);
      }
    });
    if (!any) {
      body.appendChild(el('p', null, ['No call uses or produces it.']));
    }
  }
  function showPhase(id) {
    var phase = phases[callNumber(id)];
    var body = document.getElementById('detail-body');
    var findings = 0;
    phase.calls.forEach(function (index) { findings += calls[index].findings.length; });
    document.getElementById('detail-title').textContent = 'Phase ' + phase.id + ': ' + phase.phase;
    clear(body);
    body.appendChild(el('p', { id: 'detail-phase-summary' }, [plural(phase.calls.length, 'call', 'calls') + ', ' + plural(findings, 'finding', 'findings') + '.']));
    var list = el('ol', { class: 'plain', id: 'detail-phase-calls' }, []);
    var more = el('div', null, []);
    paged(list, more, phase.calls, function (index) { return el('li', null, [callButton(index)]); }, 'calls');
    body.appendChild(list);
    body.appendChild(more);
    var button = document.querySelector('button[data-phase="' + phase.id + '"]');
    if (button && button.getAttribute('aria-expanded') !== 'true') {
      togglePhase(button);
    }
  }
  function markCurrent(selector, value) {
    Array.prototype.forEach.call(document.querySelectorAll('[aria-current]'), function (node) {
      node.removeAttribute('aria-current');
    });
    Array.prototype.forEach.call(document.querySelectorAll(selector), function (node) {
      if (node.getAttribute(selector.slice(1, -1)) === value) {
        node.setAttribute('aria-current', 'true');
      }
    });
  }
  function route(focus) {
    var hash = decodeURIComponent(location.hash.slice(1));
    var match = /^call-(\d+)$/.exec(hash);
    if (match && Number(match[1]) < calls.length) {
      showCall(Number(match[1]));
      markCurrent('[data-call]', match[1]);
    } else if (/^artifact-a\d+$/.test(hash) && artifactById[hash.slice(9)]) {
      showArtifact(hash.slice(9));
      markCurrent('[data-artifact]', hash.slice(9));
    } else if (/^phase-p\d+$/.test(hash) && Number(hash.slice(7)) < phases.length) {
      showPhase(hash.slice(6));
      markCurrent('[data-phase]', hash.slice(6));
    } else {
      return;
    }
    if (focus) {
      document.getElementById('detail-title').focus();
    }
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button') : null;
    if (!button) {
      return;
    }
    if (button.hasAttribute('data-phase')) {
      togglePhase(button);
    } else if (button.hasAttribute('data-phase-link')) {
      location.hash = 'phase-' + button.getAttribute('data-phase-link');
    } else if (button.hasAttribute('data-call')) {
      location.hash = 'call-' + button.getAttribute('data-call');
    } else if (button.hasAttribute('data-artifact')) {
      location.hash = 'artifact-' + button.getAttribute('data-artifact');
    }
  });
  window.addEventListener('hashchange', function () { route(true); });

  renderSummary();
  renderPhases();
  fillFilters();
  renderCalls();
  renderArtifacts();
  route(false);
  document.body.setAttribute('data-render-ms', String(Math.round(performance.now())));
  document.body.setAttribute('data-ready', 'true');
}());
