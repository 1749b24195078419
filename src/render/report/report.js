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
  var requests = [];
  var claims = [];
  var claimById = {};
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
    } else if (node.type === 'request') {
      requests.push(node);
    } else if (node.type === 'claim') {
      claims.push(node);
      claimById[node.id] = node;
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

  // What a call did, read from its arguments by its role (the graph's `roles`):
  // the command it ran, the paths and URLs it named, and the pattern or query it
  // searched for. The records are parsed when first needed.
  var parsedArgs = [];
  var parsedResponses = [];
  function parsed(cache, index, field) {
    if (cache[index] === undefined) {
      var record = data.records[index];
      var value = null;
      if (record[field].length === record[field + 2]) {
        try {
          value = JSON.parse(record[field]);
        } catch (e) {
          value = null;
        }
      }
      cache[index] = value;
    }
    return cache[index];
  }
  function argsOf(index) {
    return parsed(parsedArgs, index, 0);
  }
  function responseOf(index) {
    return parsed(parsedResponses, index, 1);
  }
  function pointer(value, path) {
    if (path === '') {
      return value;
    }
    var parts = path.slice(1).split('/');
    for (var i = 0; i < parts.length; i += 1) {
      if (value === null || typeof value !== 'object') {
        return undefined;
      }
      var key = parts[i].replace(/~1/g, '/').replace(/~0/g, '~');
      if (!Object.prototype.hasOwnProperty.call(value, key)) {
        return undefined;
      }
      value = value[key];
    }
    return value;
  }
  function oneLine(text, limit) {
    var line = String(text).replace(/\s*\n\s*/g, ' \u23ce ');
    return line.length > limit ? line.slice(0, limit - 1) + '\u2026' : line;
  }
  var SEARCH_KEYS = ['pattern', 'query', 'glob', 'regex', 'include'];
  // [[label, text], ...]: what the call's arguments say it did.
  function whatItDid(index) {
    var call = calls[index];
    var args = argsOf(index);
    var out = [];
    if (args === null || typeof args !== 'object') {
      return out;
    }
    var role = graph.roles[call.tool];
    var seen = {};
    var add = function (label, value) {
      var list = Array.isArray(value) ? value : [value];
      list.forEach(function (item) {
        if (typeof item === 'string' && item !== '' && !seen[label + '\u0000' + item]) {
          seen[label + '\u0000' + item] = true;
          out.push([label, item]);
        }
      });
    };
    if (role) {
      var label = role.kind === 'command' ? '$' : role.kind === 'url' ? 'url' : 'path';
      (role.uses || []).concat(role.produces || []).forEach(function (path) {
        var value = pointer(args, path);
        if (role.kind === 'command' && Array.isArray(value) && value.every(function (w) { return typeof w === 'string'; })) {
          value = value.join(' ');
        }
        add(label, value);
      });
      (role.patch || []).forEach(function (path) {
        var patch = pointer(args, path);
        if (typeof patch === 'string') {
          patch.split('\n').forEach(function (line) {
            var match = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/.exec(line);
            if (match) {
              add('path', match[1] || match[2]);
            }
          });
        }
      });
    }
    SEARCH_KEYS.forEach(function (key) {
      if (typeof args[key] === 'string') {
        add(key, args[key]);
      }
    });
    if (!out.length) {
      // No role, or none of its arguments: the first short strings it was given.
      Object.keys(args).forEach(function (key) {
        if (out.length < 2 && typeof args[key] === 'string' && args[key] !== '') {
          add(key, args[key]);
        }
      });
    }
    return out;
  }
  // The subagent a call was made by: the `subagent` member of its response, which
  // the page's data keeps beside the record.
  function subagentOf(index) {
    var record = data.records[index];
    return record.length > 4 ? record[4] : null;
  }
  // The JSON string text from `start` (just after its opening quote) to its end or
  // the end of `text`: {text, ended}.
  function decodeString(text, start) {
    var out = [];
    var i = start;
    while (i < text.length) {
      var c = text[i];
      if (c === '"') {
        return { text: out.join(''), ended: true };
      }
      if (c !== '\\') {
        var next = text.indexOf('\\', i);
        var quote = text.indexOf('"', i);
        var end = Math.min(next < 0 ? text.length : next, quote < 0 ? text.length : quote);
        out.push(text.slice(i, end));
        i = end;
        continue;
      }
      var e = text[i + 1];
      if (e === undefined) {
        break;
      }
      if (e === 'u') {
        var hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          break;
        }
        out.push(String.fromCharCode(parseInt(hex, 16)));
        i += 6;
        continue;
      }
      out.push({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' }[e] || e);
      i += 2;
    }
    return { text: out.join(''), ended: false };
  }
  // The texts of a response, shown as text: a response that is a string; each
  // string member holding a line break; each `text` of the blocks of an array
  // member (`"content": [{"type": "text", "text": ...}]`). A response cut short is
  // read up to its cut when it starts with a string member.
  function responseTexts(index) {
    var record = data.records[index];
    var response = responseOf(index);
    var out = [];
    if (typeof response === 'string') {
      out.push(['response', response, false]);
    } else if (response !== null && typeof response === 'object' && !Array.isArray(response)) {
      Object.keys(response).forEach(function (key) {
        var value = response[key];
        if (typeof value === 'string' && value.indexOf('\n') >= 0) {
          out.push([key, value, false]);
        } else if (Array.isArray(value)) {
          var texts = value.filter(function (block) {
            return block !== null && typeof block === 'object' && typeof block.text === 'string';
          }).map(function (block) { return block.text; });
          if (texts.length) {
            out.push([key, texts.join('\n\n'), false]);
          }
        }
      });
    } else if (response === null && record[1].length < record[3]) {
      var match = /^\{"([^"\\]{1,100})":"/.exec(record[1]);
      if (match) {
        out.push([match[1], decodeString(record[1], match[0].length).text, true]);
      }
    }
    return out;
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
  function whatText(index, limit) {
    return whatItDid(index).slice(0, 3).map(function (part) {
      return (part[0] === '$' ? '$ ' : part[0] + ' ') + oneLine(part[1], limit);
    }).join(' \u00b7 ');
  }
  function subagentMark(index) {
    var agent = subagentOf(index);
    return agent === null ? null : el('span', { class: 'sub' }, ['\u21b3 subagent ' + oneLine(agent, 40)]);
  }
  function callButton(index, extra) {
    var call = calls[index];
    var what = whatText(index, 140);
    var agent = subagentOf(index);
    var label = [el('span', { class: 'idx' }, ['#' + index]), ' ', el('span', { class: 'tool' }, [call.tool])];
    return el('button', {
      type: 'button',
      class: 'call',
      'data-call': index,
      'aria-label': 'Call ' + index + ': ' + call.tool + (what ? ' ' + what : '') + (agent === null ? '' : ', by subagent ' + agent) + (call.findings.length ? ', ' + plural(call.findings.length, 'finding', 'findings') : '') + (extra ? ', ' + extra : '')
    }, label.concat([' ', phaseTag(call.phase), agent === null ? null : ' ', subagentMark(index), findingBadge(call), what ? ' ' : null, what ? el('span', { class: 'what' }, [what]) : null, extra ? el('span', { class: 'rule' }, [' ' + extra]) : null]));
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
  function subagentSummary() {
    var agents = {};
    var count = 0;
    calls.forEach(function (call) {
      var agent = subagentOf(call.index);
      if (agent !== null) {
        count += 1;
        agents[agent] = true;
      }
    });
    return count ? plural(count, 'call', 'calls') + ' by ' + plural(Object.keys(agents).length, 'subagent', 'subagents') : 'none';
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
      ['Phases', el('span', { id: 'sum-phases' }, [String(phases.length) + (phaseRows.length < phases.length ? ' (' + plural(phaseRows.length, 'row', 'rows') + ' below, one-call phases folded)' : '')])],
      ['Subagent calls', el('span', { id: 'sum-subagents' }, [subagentSummary()])],
      ['Claims', el('span', { id: 'sum-claims' }, [claims.length ? plural(claims.length, 'claim', 'claims') + ': ' + summary.claims.contradicted + ' contradicted, ' + summary.claims.unsupported + ' unsupported, ' + summary.claims.supported + ' supported' : 'none: the input holds no prompts and answers'])]
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

  // Phases. A run of two or more consecutive phases of one call each is folded
  // into one row, which opens into those calls.
  var phaseRows = [];
  var foldOfPhase = {};
  (function () {
    var i = 0;
    while (i < phases.length) {
      var j = i;
      while (j < phases.length && phases[j].calls.length === 1) {
        j += 1;
      }
      if (j - i >= 2) {
        var fold = { id: 'f' + i, phases: phases.slice(i, j) };
        fold.phases.forEach(function (phase) { foldOfPhase[phase.id] = fold; });
        phaseRows.push(fold);
        i = j;
      } else {
        phaseRows.push(phases[i]);
        i += 1;
      }
    }
  }());
  var foldById = {};
  phaseRows.forEach(function (row) {
    if (row.phases) {
      foldById[row.id] = row;
    }
  });
  function findingsIn(indexes) {
    var count = 0;
    indexes.forEach(function (index) { count += calls[index].findings.length; });
    return count;
  }
  function renderPhases() {
    paged(document.getElementById('phase-list'), document.getElementById('phase-more'), phaseRows, function (row) {
      if (row.phases) {
        var indexes = row.phases.map(function (phase) { return phase.calls[0]; });
        var count = findingsIn(indexes);
        var kinds = {};
        row.phases.forEach(function (phase) { kinds[phase.phase] = (kinds[phase.phase] || 0) + 1; });
        var foldId = 'fold-calls-' + row.id;
        var fold = el('button', {
          type: 'button',
          class: 'fold wide',
          'aria-expanded': 'false',
          'aria-controls': foldId,
          'data-fold': row.id
        }, [el('span', { class: 'tag tag-none' }, ['folded']), ' ', plural(row.phases.length, 'one-call phase', 'one-call phases') + ', calls ' + indexes[0] + '\u2013' + indexes[indexes.length - 1] + ' (' + Object.keys(kinds).map(function (k) { return kinds[k] + ' ' + k; }).join(', ') + ')', count ? el('span', { class: 'badge' }, ['\u26a0 ' + plural(count, 'finding', 'findings')]) : null]);
        return el('li', null, [fold, el('ol', { id: foldId, class: 'plain phase-calls', hidden: '' }, []), el('div', { id: foldId + '-more', hidden: '' }, [])]);
      }
      var phase = row;
      var count = findingsIn(phase.calls);
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
      return el('li', null, [button, inner, el('div', { id: listId + '-more', hidden: '' }, [])]);
    }, 'phase rows');
  }
  function togglePhase(button) {
    var inner = document.getElementById(button.getAttribute('aria-controls'));
    var open = button.getAttribute('aria-expanded') === 'true';
    if (!open && !inner.firstChild) {
      var indexes;
      if (button.hasAttribute('data-fold')) {
        indexes = foldById[button.getAttribute('data-fold')].phases.map(function (phase) { return phase.calls[0]; });
      } else {
        indexes = phases[callNumber(button.getAttribute('data-phase'))].calls;
      }
      paged(inner, document.getElementById(inner.id + '-more'), indexes, function (index) {
        return el('li', null, [callButton(index)]);
      }, 'calls');
    }
    button.setAttribute('aria-expanded', open ? 'false' : 'true');
    inner.hidden = open;
    document.getElementById(inner.id + '-more').hidden = open;
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

  // Claims: contradicted first, then unsupported, then supported.
  var VERDICT_ORDER = { contradicted: 0, unsupported: 1, supported: 2 };
  var VERDICT_SIGN = { contradicted: '\u2717', unsupported: '?', supported: '\u2713' };
  var sortedClaims = claims.slice().sort(function (a, b) {
    return (VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict]) || (callNumber(a.id) - callNumber(b.id));
  });
  var requestOfTurn = {};
  requests.forEach(function (request) { requestOfTurn[request.turn] = request; });
  function verdictTag(verdict) {
    return el('span', { class: 'verdict verdict-' + verdict }, [(VERDICT_SIGN[verdict] || '') + ' ' + verdict]);
  }
  function claimButton(id, extra) {
    var claim = claimById[id];
    return el('button', {
      type: 'button',
      class: 'claim',
      'data-claim': id,
      'aria-label': 'Claim ' + id + ', ' + claim.verdict + ': ' + oneLine(claim.text, 200) + (extra ? ', ' + extra : '')
    }, [verdictTag(claim.verdict), ' ', el('span', { class: 'claim-text' }, [oneLine(claim.text, 240)]), extra ? el('span', { class: 'rule' }, [' ' + extra]) : null]);
  }
  // An atom: its kind and text, its status, and the call behind it.
  function atomItem(atom) {
    var parts = [el('span', { class: 'tag tag-none' }, [atom.kind]), ' ', el('code', null, [oneLine(atom.text, 200)]), ' ', verdictTag(atom.status)];
    if (atom.support) {
      parts.push(el('span', { class: 'rule' }, [' supported by (' + atom.support.rule + ') ']));
      parts.push(callButton(atom.support.call));
    }
    if (atom.reason) {
      parts.push(el('span', { class: 'reason' }, [' ' + atom.reason]));
    }
    if (atom.against !== undefined) {
      parts.push(el('span', { class: 'rule' }, [' against ']));
      parts.push(callButton(atom.against));
    }
    return el('li', { class: 'atom' }, parts);
  }
  function renderClaims() {
    var section = document.getElementById('claims');
    if (!claims.length) {
      return;
    }
    section.hidden = false;
    var counts = summary.claims || {};
    document.getElementById('claims-count').textContent = plural(claims.length, 'claim', 'claims') + ': ' + (counts.contradicted || 0) + ' contradicted, ' + (counts.unsupported || 0) + ' unsupported, ' + (counts.supported || 0) + ' supported. Contradicted ones first.';
    paged(document.getElementById('claim-list'), document.getElementById('claim-more'), sortedClaims, function (claim) {
      return el('li', { class: 'claim-row' }, [claimButton(claim.id), el('ul', { class: 'plain atoms' }, claim.atoms.map(atomItem))]);
    }, 'claims');
  }
  function showClaim(id) {
    var claim = claimById[id];
    var body = document.getElementById('detail-body');
    document.getElementById('detail-title').textContent = 'Claim ' + claim.id + ': ' + claim.verdict;
    clear(body);
    var request = requestOfTurn[claim.turn];
    var facts = el('dl', { class: 'facts', id: 'detail-facts' }, []);
    [
      ['Verdict', verdictTag(claim.verdict)],
      ['Turn', String(claim.turn)],
      ['Asked', request ? oneLine(request.text, 400) : 'no prompt: the agent spoke first'],
      ['Calls of the turn', request ? (request.end_call === null ? 'from ' + request.first_call : request.first_call + '\u2013' + (request.end_call - 1)) : 'none']
    ].forEach(function (fact) {
      facts.appendChild(el('dt', null, [fact[0]]));
      facts.appendChild(el('dd', null, [fact[1]]));
    });
    body.appendChild(facts);
    body.appendChild(el('h3', null, ['What the agent said']));
    body.appendChild(el('pre', { class: 'text', id: 'detail-claim-text' }, [claim.text]));
    body.appendChild(el('div', { id: 'detail-atoms' }, [el('h3', null, ['Atoms and their evidence (' + claim.atoms.length + ')']), el('ul', { class: 'plain atoms' }, claim.atoms.map(atomItem))]));
    highlightClaim(claim.id);
  }

  // The drawing: the workflow layer as a timeline (one lane a phase kind, each
  // phase a block as wide as its calls), the turns' requests above it, the claims
  // on top with an edge to each call that is evidence for them (a dashed one to a
  // run that contradicts them). A phase opens, below, into its calls and their
  // artifacts.
  var SVG = 'http://www.w3.org/2000/svg';
  function r1(n) {
    return Math.round(n * 10) / 10;
  }
  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (typeof value === 'number') {
        value = Math.round(value * 10) / 10;
      }
      if (value !== null && value !== undefined) {
        node.setAttribute(key, String(value));
      }
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
      }
    });
    return node;
  }
  var LEFT = 92;
  var UNIT = 5;
  var MIN_WIDTH = 10;
  var GAP = 2;
  var LANES = ['inspect', 'change', 'execute', 'validate', 'other'];
  var CLAIM_ROWS = 3;
  var CLAIM_TOP = 14;
  var CLAIM_STEP = 20;
  var REQUEST_Y = CLAIM_TOP + CLAIM_ROWS * CLAIM_STEP + 6;
  var LANE_TOP = REQUEST_Y + 30;
  var LANE_HEIGHT = 22;
  var callX = [];
  var callWidth = [];
  var phaseBox = {};
  var drawnEdges = {};
  // The width of a call: the whole timeline fits the page when it can, and a call
  // is never narrower than 2 pixels (the drawing then scrolls).
  function fitUnit(available) {
    var units = 0;
    var next = 0;
    phases.forEach(function (phase) {
      var first = phase.calls[0];
      var last = phase.calls[phase.calls.length - 1];
      units += Math.max(0, first - next) + Math.max(2, last + 1 - first) + 0.4;
      next = last + 1;
    });
    units += Math.max(0, calls.length - next);
    return Math.max(2, Math.min(40, units ? available / units : 40));
  }
  function layout(available) {
    UNIT = fitUnit(available);
    MIN_WIDTH = 2 * UNIT;
    GAP = 0.4 * UNIT;
    var x = LEFT;
    var next = 0;
    var place = function (from, to, width) {
      var each = width / (to - from);
      for (var i = from; i < to; i += 1) {
        callX[i] = x + (i - from) * each;
        callWidth[i] = each;
      }
      x += width;
    };
    phases.forEach(function (phase) {
      var first = phase.calls[0];
      var last = phase.calls[phase.calls.length - 1];
      if (first > next) {
        place(next, first, (first - next) * UNIT);
      }
      var start = x;
      place(first, last + 1, Math.max(MIN_WIDTH, (last + 1 - first) * UNIT));
      phaseBox[phase.id] = { x: start, width: x - start };
      x += GAP;
      next = last + 1;
    });
    if (calls.length > next) {
      place(next, calls.length, (calls.length - next) * UNIT);
    }
    return x;
  }
  function laneY(phase) {
    var lane = LANES.indexOf(phase || 'other');
    return LANE_TOP + lane * LANE_HEIGHT;
  }
  function xAt(index) {
    if (index >= calls.length) {
      return calls.length ? callX[calls.length - 1] + callWidth[calls.length - 1] : LEFT;
    }
    return callX[index];
  }
  function drawTimeline() {
    var holder = document.getElementById('drawing');
    var width = Math.ceil(layout(Math.max(300, holder.clientWidth - LEFT - 24))) + 20;
    var height = LANE_TOP + LANES.length * LANE_HEIGHT + 26;
    var root = svg('svg', { id: 'timeline', width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'group', 'aria-label': 'The workflow layer: ' + plural(phases.length, 'phase', 'phases') + ' on a timeline of ' + plural(calls.length, 'call', 'calls') + (claims.length ? ', ' + plural(claims.length, 'claim', 'claims') + ' above' : '') });
    var lanes = svg('g', { class: 'g-lanes' }, []);
    LANES.forEach(function (lane, i) {
      var y = LANE_TOP + i * LANE_HEIGHT;
      lanes.appendChild(svg('rect', { class: 'g-lane', x: 0, y: y, width: width, height: LANE_HEIGHT }, []));
      lanes.appendChild(svg('text', { class: 'g-label', x: 6, y: y + 15 }, [lane === 'other' ? 'no role' : lane]));
    });
    lanes.appendChild(svg('text', { class: 'g-label', x: 6, y: REQUEST_Y + 14 }, ['requests']));
    lanes.appendChild(svg('text', { class: 'g-label', x: 6, y: CLAIM_TOP + 14 }, ['claims']));
    root.appendChild(lanes);
    // Call numbers along the bottom, at least 70 pixels apart.
    var axis = svg('g', { class: 'g-axis' }, []);
    var bottom = LANE_TOP + LANES.length * LANE_HEIGHT;
    var lastX = -Infinity;
    var steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
    var step = steps[steps.length - 1];
    for (var s = 0; s < steps.length; s += 1) {
      if (steps[s] * UNIT >= 70) {
        step = steps[s];
        break;
      }
    }
    for (var k = 0; k < calls.length; k += step) {
      if (callX[k] - lastX >= 70) {
        axis.appendChild(svg('line', { x1: callX[k], x2: callX[k], y1: bottom, y2: bottom + 5 }, []));
        axis.appendChild(svg('text', { class: 'g-tick', x: callX[k] + 2, y: bottom + 17 }, ['#' + k]));
        lastX = callX[k];
      }
    }
    root.appendChild(axis);
    // Requests: a band over the calls of their turn.
    var bands = svg('g', { class: 'g-requests' }, []);
    requests.forEach(function (request) {
      var from = xAt(request.first_call);
      var to = xAt(request.end_call === null ? calls.length : request.end_call);
      var w = Math.max(6, to - from);
      bands.appendChild(svg('g', { class: 'g-request', 'data-request': request.id }, [
        svg('rect', { x: from, y: REQUEST_Y, width: w, height: 20, rx: 3 }, []),
        svg('text', { x: from + 4, y: REQUEST_Y + 14 }, [w > 40 ? oneLine(request.text, Math.floor((w - 8) / 6.5)) : '']),
        svg('title', {}, ['request ' + request.id + ': ' + oneLine(request.text, 300)])
      ]));
    });
    root.appendChild(bands);
    // Phases and the calls outside them.
    var blocks = svg('g', { class: 'g-phases' }, []);
    phases.forEach(function (phase) {
      var box = phaseBox[phase.id];
      var y = laneY(phase.phase);
      var findings = findingsIn(phase.calls);
      var label = 'Phase ' + phase.id + ': ' + phase.phase + ', ' + plural(phase.calls.length, 'call', 'calls') + ' from #' + phase.calls[0] + (findings ? ', ' + plural(findings, 'finding', 'findings') : '');
      var group = svg('g', { class: 'g-phase g-' + phase.phase + (findings ? ' g-finding' : ''), 'data-phase-link': phase.id, tabindex: '0', role: 'button', 'aria-label': label }, [
        svg('rect', { x: box.x, y: y + 2, width: box.width, height: LANE_HEIGHT - 4, rx: 2 }, []),
        box.width >= 22 ? svg('text', { x: box.x + 3, y: y + 15 }, [String(phase.calls.length) + (findings && box.width >= 40 ? ' \u26a0' : '')]) : null,
        findings && box.width < 40 ? svg('text', { class: 'g-warn', x: box.x, y: y + 1 }, ['\u26a0']) : null,
        svg('title', {}, [label])
      ]);
      blocks.appendChild(group);
    });
    calls.forEach(function (call) {
      if (call.phase === null) {
        blocks.appendChild(svg('rect', { class: 'g-tick-call', 'data-call-tick': call.index, x: callX[call.index], y: laneY(null) + 5, width: Math.max(2, callWidth[call.index] - 1), height: LANE_HEIGHT - 10 }, [svg('title', {}, ['#' + call.index + ' ' + call.tool])]));
      }
    });
    root.appendChild(blocks);
    // Claims, and their evidence edges.
    var edges = svg('g', { class: 'g-edges' }, []);
    var marks = svg('g', { class: 'g-claims' }, []);
    var rowEnd = [];
    var byTurn = {};
    claims.forEach(function (claim) { (byTurn[claim.turn] = byTurn[claim.turn] || []).push(claim); });
    Object.keys(byTurn).map(Number).sort(function (a, b) { return a - b; }).forEach(function (turn) {
      var list = byTurn[turn];
      var request = requestOfTurn[turn];
      var from;
      var to;
      if (request) {
        from = xAt(request.first_call);
        to = xAt(request.end_call === null ? calls.length : request.end_call);
      } else {
        var at = 0;
        list.forEach(function (claim) {
          claim.atoms.forEach(function (atom) {
            if (atom.support) { at = Math.max(at, atom.support.call + 1); }
            if (atom.against !== undefined) { at = Math.max(at, atom.against + 1); }
          });
        });
        from = xAt(at);
        to = from;
      }
      list.forEach(function (claim, i) {
        var want = to - (list.length - 1 - i) * 18;
        want = Math.max(want, from, LEFT + 8);
        var row = 0;
        while (row < CLAIM_ROWS - 1 && rowEnd[row] !== undefined && rowEnd[row] > want - 16) {
          row += 1;
        }
        var x = Math.max(want, rowEnd[row] === undefined ? want : rowEnd[row] + 16);
        rowEnd[row] = x;
        var y = CLAIM_TOP + row * CLAIM_STEP + 8;
        var lines = [];
        claim.atoms.forEach(function (atom) {
          var targets = [];
          if (atom.support) { targets.push([atom.support.call, 'support']); }
          if (atom.against !== undefined) { targets.push([atom.against, 'against']); }
          targets.forEach(function (target) {
            var index = target[0];
            if (index >= calls.length) {
              return;
            }
            var tx = callX[index] + callWidth[index] / 2;
            var ty = laneY(calls[index].phase) + 2;
            var line = svg('path', { class: 'g-edge g-edge-' + target[1], 'data-from-claim': claim.id, d: 'M' + r1(x) + ',' + (y + 7) + ' C' + r1(x) + ',' + (y + 40) + ' ' + r1(tx) + ',' + (ty - 40) + ' ' + r1(tx) + ',' + ty }, [svg('title', {}, [(target[1] === 'support' ? 'supports' : 'contradicts') + ' ' + claim.id + ': #' + index + ' (' + atom.kind + ' ' + oneLine(atom.text, 80) + ')'])]);
            lines.push(line);
            edges.appendChild(line);
          });
        });
        drawnEdges[claim.id] = lines;
        var label = 'Claim ' + claim.id + ', ' + claim.verdict + ': ' + oneLine(claim.text, 200);
        marks.appendChild(svg('g', { class: 'g-claim g-' + claim.verdict, 'data-claim': claim.id, tabindex: '0', role: 'button', 'aria-label': label }, [
          svg('circle', { cx: x, cy: y, r: 8 }, []),
          svg('text', { x: x, y: y + 4, 'text-anchor': 'middle' }, [VERDICT_SIGN[claim.verdict]]),
          svg('title', {}, [label])
        ]));
      });
    });
    root.appendChild(edges);
    root.appendChild(marks);
    holder.appendChild(root);
  }
  function highlightClaim(id) {
    Array.prototype.forEach.call(document.querySelectorAll('#timeline .g-on'), function (node) {
      node.classList.remove('g-on');
    });
    (drawnEdges[id] || []).forEach(function (line) { line.classList.add('g-on'); });
    var mark = document.querySelector('#timeline .g-claim[data-claim="' + id + '"]');
    if (mark) {
      mark.classList.add('g-on');
    }
  }
  // A phase opened: its calls as boxes, the artifacts they use and produce below.
  var ZOOM_LIMIT = 60;
  function drawPhase(phase) {
    Array.prototype.forEach.call(document.querySelectorAll('#timeline .g-on'), function (node) {
      node.classList.remove('g-on');
    });
    var block = document.querySelector('#timeline .g-phase[data-phase-link="' + phase.id + '"]');
    if (block) {
      block.classList.add('g-on');
    }
    var holder = document.getElementById('zoom');
    clear(holder);
    holder.hidden = false;
    var shown = phase.calls.slice(0, ZOOM_LIMIT);
    var artifactsShown = [];
    var artifactAt = {};
    var links = [];
    shown.forEach(function (index) {
      (outgoing['c' + index] || []).forEach(function (edge) {
        if ((edge.type === 'uses' || edge.type === 'produces') && artifactById[edge.to]) {
          if (artifactAt[edge.to] === undefined && artifactsShown.length < ZOOM_LIMIT) {
            artifactAt[edge.to] = artifactsShown.length;
            artifactsShown.push(edge.to);
          }
          if (artifactAt[edge.to] !== undefined) {
            links.push([index, edge.to, edge.type]);
          }
        }
      });
    });
    var BOX = 190;
    var width = 20 + Math.max(shown.length, artifactsShown.length) * (BOX + 10);
    var height = 200;
    var root = svg('svg', { id: 'phase-zoom', width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'group', 'aria-label': 'Phase ' + phase.id + ' opened: ' + plural(phase.calls.length, 'call', 'calls') + ' and ' + plural(artifactsShown.length, 'artifact', 'artifacts') }, []);
    var callAt = {};
    shown.forEach(function (index, i) { callAt[index] = i; });
    links.forEach(function (link) {
      var x1 = 10 + callAt[link[0]] * (BOX + 10) + BOX / 2;
      var x2 = 10 + artifactAt[link[1]] * (BOX + 10) + BOX / 2;
      root.appendChild(svg('path', { class: 'g-link g-link-' + link[2], d: 'M' + x1 + ',62 C' + x1 + ',100 ' + x2 + ',100 ' + x2 + ',138' }, [svg('title', {}, ['#' + link[0] + ' ' + link[2] + ' ' + artifactById[link[1]].name])]));
    });
    shown.forEach(function (index, i) {
      var call = calls[index];
      var x = 10 + i * (BOX + 10);
      var what = whatText(index, 200);
      root.appendChild(svg('g', { class: 'g-call g-' + (call.phase || 'other') + (call.findings.length ? ' g-finding' : ''), 'data-call': index, tabindex: '0', role: 'button', 'aria-label': 'Call ' + index + ': ' + call.tool + (what ? ' ' + what : '') }, [
        svg('rect', { x: x, y: 10, width: BOX, height: 52, rx: 4 }, []),
        svg('text', { x: x + 6, y: 27 }, ['#' + index + ' ' + oneLine(call.tool, 20) + (call.findings.length ? ' \u26a0' : '') + (subagentOf(index) === null ? '' : ' \u21b3')]),
        svg('text', { class: 'g-what', x: x + 6, y: 45 }, [what.length > 27 ? '\u2026' + oneLine(what, 400).slice(-26) : what]),
        svg('title', {}, ['#' + index + ' ' + call.tool + (what ? ': ' + what : '')])
      ]));
    });
    artifactsShown.forEach(function (id, i) {
      var artifact = artifactById[id];
      var x = 10 + i * (BOX + 10);
      root.appendChild(svg('g', { class: 'g-artifact', 'data-artifact': id, tabindex: '0', role: 'button', 'aria-label': 'Artifact ' + artifact.kind + ' ' + artifact.name }, [
        svg('rect', { x: x, y: 138, width: BOX, height: 40, rx: 2 }, []),
        svg('text', { x: x + 6, y: 155 }, [artifact.kind]),
        svg('text', { class: 'g-what', x: x + 6, y: 171 }, [oneLine(artifact.name.length > 27 ? '\u2026' + artifact.name.slice(-26) : artifact.name, 27)]),
        svg('title', {}, [artifact.kind + ' ' + artifact.name])
      ]));
    });
    holder.appendChild(el('p', { class: 'hint', id: 'zoom-title' }, ['Phase ' + phase.id + ' (' + phase.phase + ') opened: ' + (phase.calls.length > ZOOM_LIMIT ? 'its first ' + ZOOM_LIMIT + ' of ' + phase.calls.length + ' calls' : plural(phase.calls.length, 'call', 'calls')) + ' and ' + plural(artifactsShown.length, 'artifact', 'artifacts') + ' they use (thin line) or produce (thick line).']));
    holder.appendChild(el('div', { class: 'scroll' }, [root]));
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
      ['Digest', call.digest === undefined ? 'not sealed' : call.digest],
      ['Did', whatText(index, 400) || 'nothing its arguments name'],
      ['Made by', subagentOf(index) === null ? 'the agent' : 'subagent ' + subagentOf(index)]
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
      edgeList('Flows from', 'detail-flows-from', ofType(into, 'flows'), fromCall),
      edgeList('Evidence for claims', 'detail-supports', ofType(out, 'supports'), function (edge) {
        return claimButton(edge.to, '(' + edge.rule + ', ' + edge.via + ')');
      })
    ].forEach(function (part) {
      if (part) {
        body.appendChild(part);
      }
    });
    body.appendChild(fieldBlock('Arguments', 'detail-args', record[0], record[2]));
    var texts = responseTexts(index);
    if (texts.length) {
      texts.forEach(function (text, i) {
        body.appendChild(el('div', null, [
          el('h3', null, ['Response text (' + text[0] + ')']),
          text[2] ? el('p', { class: 'hint' }, ['Shown: the text up to where the response was cut, at ' + record[1].length + ' of ' + record[3] + ' bytes.']) : null,
          el('pre', { class: 'text', id: i === 0 ? 'detail-response-text' : null, tabindex: '0' }, [text[1]])
        ]));
      });
      var json = fieldBlock('Response as JSON', 'detail-response', record[1], record[3]);
      body.appendChild(el('details', null, [el('summary', null, ['Response as JSON'])].concat(Array.prototype.slice.call(json.childNodes, 1))));
    } else {
      body.appendChild(fieldBlock('Response', 'detail-response', record[1], record[3]));
    }
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
    var fold = foldOfPhase[phase.id];
    var button = fold ? document.querySelector('button[data-fold="' + fold.id + '"]') : document.querySelector('button[data-phase="' + phase.id + '"]');
    if (button && button.getAttribute('aria-expanded') !== 'true') {
      togglePhase(button);
    }
    drawPhase(phase);
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
    } else if (/^claim-k\d+$/.test(hash) && claimById[hash.slice(6)]) {
      showClaim(hash.slice(6));
      markCurrent('[data-claim]', hash.slice(6));
    } else {
      return;
    }
    if (focus) {
      document.getElementById('detail-title').focus();
    }
  }

  function activate(button) {
    if (button.hasAttribute('data-phase') || button.hasAttribute('data-fold')) {
      togglePhase(button);
    } else if (button.hasAttribute('data-phase-link')) {
      location.hash = 'phase-' + button.getAttribute('data-phase-link');
    } else if (button.hasAttribute('data-call')) {
      location.hash = 'call-' + button.getAttribute('data-call');
    } else if (button.hasAttribute('data-artifact')) {
      location.hash = 'artifact-' + button.getAttribute('data-artifact');
    } else if (button.hasAttribute('data-claim')) {
      location.hash = 'claim-' + button.getAttribute('data-claim');
    }
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button, [role="button"]') : null;
    if (button) {
      activate(button);
    }
  });
  // The drawing's blocks are not buttons: Enter and Space open them too.
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    if ((event.key === 'Enter' || event.key === ' ') && target.getAttribute && target.getAttribute('role') === 'button' && target.tagName.toLowerCase() !== 'button') {
      event.preventDefault();
      activate(target);
    }
  });
  window.addEventListener('hashchange', function () { route(true); });

  renderClaims();
  renderSummary();
  drawTimeline();
  renderPhases();
  fillFilters();
  renderCalls();
  renderArtifacts();
  route(false);
  // The time to a drawn page: the page laid out (styles and layout forced).
  void document.body.offsetHeight;
  document.body.setAttribute('data-render-ms', String(Math.round(performance.now())));
  document.body.setAttribute('data-ready', 'true');
}());
