// The Kite suite: VS Code's DebugClient against `polydbg dap`, one test per advertised
// capability, bad requests, and a client going away mid-run.
import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { POLYDBG, record } from './common.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polydbg-dap-'));
const write = (name, src) => { const p = path.join(dir, name); fs.writeFileSync(p, src); return p; };

const PROG = write('prog.kite', `fn add(a, b) {
    let s = a + b
    return s
}
let big = range(0, 1000000)
let total = 0
for i in range(0, 5) {
    total = add(total, i)
}
print("total \${total}")
`);
const LOOP = write('loop.kite', `let n = 0
while true {
    n += 1
}
`);
const CRASH = write('crash.kite', `let xs = [1]
print("before")
let y = xs[5]
print("after")
`);

let dc, stopped, exitedEv, terminatedEv, output;
async function newClient() {
  dc = new DebugClient(POLYDBG, 'dap', 'polydbg');
  dc.defaultTimeout = 20000;
  stopped = record(dc, 'stopped');
  exitedEv = record(dc, 'exited');
  terminatedEv = record(dc, 'terminated');
  output = { stdout: '', stderr: '', console: '' };
  dc.on('output', (e) => { output[e.body.category] += e.body.output; });
  await dc.start();
}
beforeEach(newClient);
afterEach(async () => { await dc.stop(); });

// stoppedAt waits for the next stop and checks its reason and line.
async function stoppedAt(reason, line) {
  const ev = await stopped();
  assert.equal(ev.body.reason, reason);
  if (line !== undefined) assert.equal((await topFrame()).line, line);
  return ev;
}

async function outputHas(category, text, timeout = 20000) {
  const end = Date.now() + timeout;
  while (!output[category].includes(text)) {
    if (Date.now() > end) assert.fail(`no ${category} output ${JSON.stringify(text)}: got ${JSON.stringify(output[category])}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// start launches with breakpoints set in the configuration phase.
async function start(args, setup = async () => {}) {
  await Promise.all([
    dc.waitForEvent('initialized').then(setup).then(() => dc.configurationDoneRequest()),
    dc.launch(args),
  ]);
}

async function topFrame() {
  const st = await dc.stackTraceRequest({ threadId: 1 });
  return st.body.stackFrames[0];
}

async function varsOf(frameId, scope = 0) {
  const sc = await dc.scopesRequest({ frameId });
  const v = await dc.variablesRequest({ variablesReference: sc.body.scopes[scope].variablesReference });
  return Object.fromEntries(v.body.variables.map((x) => [x.name, x]));
}

describe('kite', () => {
  test('initialize advertises what the engine does, and not stepBack', async () => {
    const r = await dc.initializeRequest({ adapterID: 'polydbg', linesStartAt1: true, columnsStartAt1: true });
    const c = r.body;
    for (const k of ['supportsConfigurationDoneRequest', 'supportsFunctionBreakpoints', 'supportsConditionalBreakpoints',
      'supportsHitConditionalBreakpoints', 'supportsLogPoints', 'supportsEvaluateForHovers', 'supportsCompletionsRequest',
      'supportsRestartRequest', 'supportsTerminateRequest', 'supportsLoadedSourcesRequest', 'supportsCancelRequest',
      'supportsSteppingGranularity', 'supportsDelayedStackTraceLoading', 'supportsExceptionInfoRequest',
      'supportsBreakpointLocationsRequest']) {
      assert.equal(c[k], true, k);
    }
    assert.equal(c.supportsStepBack, undefined);
    assert.deepEqual(c.exceptionBreakpointFilters.map((f) => f.filter), ['runtime']);
  });

  test('breakpointLocations: the lines of a range that have code', async () => {
    await start({ program: PROG, stopOnEntry: true });
    await stoppedAt('entry');
    const r = await dc.customRequest('breakpointLocations', { source: { path: PROG }, line: 1, endLine: 12 });
    assert.deepEqual(r.body.breakpoints.map((b) => b.line), [1, 2, 3, 4, 5, 6, 7, 8, 10]); // a function's own line and its end run code in Kite
    const one = await dc.customRequest('breakpointLocations', { source: { path: PROG }, line: 9 });
    assert.deepEqual(one.body.breakpoints, [], "a loop's closing brace has no code");
    await assert.rejects(dc.customRequest('breakpointLocations', { source: { path: PROG }, line: 0 }));
  });

  test('stopOnEntry, then a line breakpoint is hit with its id', async () => {
    let bpId;
    const caps = dc.waitForEvent('capabilities');
    await start({ program: PROG, stopOnEntry: true });
    assert.equal((await caps).body.capabilities.supportsInstructionBreakpoints, true);
    await stoppedAt('entry', 1);
    const r = await dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 2 }, { line: 4 }] });
    assert.equal(r.body.breakpoints[0].verified, true);
    bpId = r.body.breakpoints[0].id;
    assert.ok(r.body.breakpoints[1].line >= 4, 'each breakpoint reports the line it bound to');
    assert.notEqual(r.body.breakpoints[1].id, bpId);
    const stop = stopped();
    await dc.continueRequest({ threadId: 1 });
    const ev = await stop;
    assert.equal(ev.body.reason, 'breakpoint');
    assert.deepEqual(ev.body.hitBreakpointIds, [bpId]);
    assert.equal((await topFrame()).line, 2);
  });

  test('condition, hit condition and logpoint', async () => {
    await start({ program: PROG }, () => dc.setBreakpointsRequest({ source: { path: PROG },
      breakpoints: [{ line: 2, condition: 'b == 3' }, { line: 3, logMessage: 's=${s}' }] }));
    await stoppedAt('breakpoint', 2);
    let v = await varsOf((await topFrame()).id);
    assert.equal(v.b.value, '3');
    await outputHas('console', 's=0\ns=1\ns=3\n');
    await dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 2, hitCondition: '== 1' }] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), stoppedAt('breakpoint', 2)]);
    v = await varsOf((await topFrame()).id);
    assert.equal(v.b.value, '4', 'the hit count starts again for a changed breakpoint');
  });

  test('function breakpoint', async () => {
    await start({ program: PROG }, () => dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'add' }] }));
    const ev = await stopped();
    assert.equal(ev.body.reason, 'function breakpoint');
    assert.equal((await topFrame()).name, 'add');
  });

  test('exception breakpoints: runtime errors stop, or not', async () => {
    await start({ program: CRASH }, () => dc.setExceptionBreakpointsRequest({ filters: ['runtime'] }));
    const ev = await stopped();
    assert.equal(ev.body.reason, 'exception');
    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    assert.match(info.body.description, /index/);
    assert.equal((await topFrame()).line, 3);
    await dc.stop();
    await newClient();
    const exited = exitedEv();
    await start({ program: CRASH }, () => dc.setExceptionBreakpointsRequest({ filters: [] }));
    assert.equal((await exited).body.exitCode, 1);
  });

  test('threads, stackTrace paging, scopes, variables paging a million items', async () => {
    await start({ program: PROG }, () => dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 2 }] }));
    await stopped();
    assert.deepEqual((await dc.threadsRequest()).body.threads, [{ id: 1, name: 'main' }]);
    const page = await dc.stackTraceRequest({ threadId: 1, startFrame: 1, levels: 1 });
    assert.equal(page.body.totalFrames, 2);
    assert.equal(page.body.stackFrames.length, 1);
    assert.equal(page.body.stackFrames[0].line, 8);
    const sc = await dc.scopesRequest({ frameId: (await topFrame()).id });
    assert.deepEqual(sc.body.scopes.map((s) => s.name), ['Locals', 'Globals']);
    const g = await varsOf((await topFrame()).id, 1);
    assert.equal(g.big.indexedVariables, 1000000);
    const items = await dc.variablesRequest({ variablesReference: g.big.variablesReference, filter: 'indexed', start: 500000, count: 100 });
    assert.equal(items.body.variables.length, 100);
    assert.equal(items.body.variables[0].name, '500000');
    assert.equal(items.body.variables[99].value, '500099');
  });

  test('next, stepIn, stepOut (lands in the caller), instruction granularity', async () => {
    await start({ program: PROG }, () => dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 8 }] }));
    await stoppedAt('breakpoint', 8);
    await Promise.all([dc.stepInRequest({ threadId: 1 }), stoppedAt('step', 2)]);
    await Promise.all([dc.nextRequest({ threadId: 1 }), stoppedAt('step', 3)]);
    await Promise.all([dc.stepOutRequest({ threadId: 1 }), stoppedAt('step', 8)]);
    const before = (await topFrame()).instructionPointerReference;
    await Promise.all([dc.nextRequest({ threadId: 1, granularity: 'instruction' }), stopped()]);
    const after = (await topFrame()).instructionPointerReference;
    assert.equal(BigInt(after) - BigInt(before), 1n, `one instruction: ${before} -> ${after}`);
  });

  test('pause a running loop, then instruction breakpoint at the pc', async () => {
    await start({ program: LOOP });
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all([dc.pauseRequest({ threadId: 1 }), stoppedAt('pause')]);
    const pc = (await topFrame()).instructionPointerReference;
    const r = await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: pc }] });
    assert.equal(r.body.breakpoints[0].verified, true);
    const ev = stopped();
    await dc.continueRequest({ threadId: 1 });
    assert.equal((await ev).body.reason, 'instruction breakpoint');
    assert.equal((await topFrame()).instructionPointerReference, pc);
  });

  test('evaluate: watch and hover are pure, repl has side effects; completions', async () => {
    await start({ program: PROG }, () => dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 3 }] }));
    await stopped();
    const frameId = (await topFrame()).id;
    assert.equal((await dc.evaluateRequest({ expression: 'a + b + 1', frameId, context: 'hover' })).body.result, '1');
    assert.equal((await dc.evaluateRequest({ expression: 'a', frameId, context: 'clipboard' })).body.result, '0');
    await assert.rejects(dc.evaluateRequest({ expression: 'print(a)', frameId, context: 'clipboard' }), /impure/);
    await assert.rejects(dc.evaluateRequest({ expression: 's = 42', frameId, context: 'watch' }));
    await assert.rejects(dc.evaluateRequest({ expression: 'print("x")', frameId, context: 'watch' }));
    await dc.evaluateRequest({ expression: 'print("from repl")', frameId, context: 'repl' });
    await outputHas('stdout', 'from repl');
    const c = await dc.completionsRequest({ text: 'x + to', column: 7, frameId });
    assert.deepEqual(c.body.targets.map((t) => t.label), ['total']);
    assert.equal(c.body.targets[0].start, 4);
  });

  test('setVariable on locals, globals and list items; setExpression on an lvalue', async () => {
    const caps = dc.waitForEvent('capabilities');
    await start({ program: PROG }, () => dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 3 }] }));
    const c = (await caps).body.capabilities;
    assert.equal(c.supportsSetVariable, true);
    assert.equal(c.supportsSetExpression, true);
    await stopped(); // in add(0, 0), s = 0
    const frameId = (await topFrame()).id;
    const sc = (await dc.scopesRequest({ frameId })).body.scopes;
    const set = await dc.setVariableRequest({ variablesReference: sc[0].variablesReference, name: 's', value: 'a + 100' });
    assert.equal(set.body.value, '100');
    const g = await dc.setVariableRequest({ variablesReference: sc[1].variablesReference, name: 'big', value: '[1, 2, 3]' });
    assert.equal(g.body.value, '[1, 2, 3]');
    assert.ok(g.body.variablesReference > 0, 'the new list can be expanded');
    const item = await dc.setVariableRequest({ variablesReference: g.body.variablesReference, name: '1', value: '"two"' });
    assert.equal(item.body.value, '"two"');
    const e = await dc.customRequest('setExpression', { expression: 'big[2]', value: 's * 2', frameId });
    assert.equal(e.body.value, '200');
    assert.equal((await dc.evaluateRequest({ expression: 'big', frameId, context: 'watch' })).body.result, '[1, "two", 200]');
    await assert.rejects(dc.setVariableRequest({ variablesReference: sc[0].variablesReference, name: 'nope', value: '1' }), /no variable nope/);
    await assert.rejects(dc.customRequest('setExpression', { expression: 'a + b', value: '1', frameId }), /cannot assign/);
    await dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [] });
    await dc.continueRequest({ threadId: 1 });
    await outputHas('stdout', 'total 110'); // add(0, 0) returned 100, then 1 + 2 + 3 + 4
  });

  test('loadedSources, output categories, exited and terminated', async () => {
    const exited = exitedEv();
    const term = terminatedEv();
    await start({ program: PROG });
    await outputHas('stdout', 'total 10\n');
    assert.equal((await exited).body.exitCode, 0);
    await term;
  });

  test('loadedSources lists the program', async () => {
    await start({ program: PROG, stopOnEntry: true });
    await stopped();
    const r = await dc.customRequest('loadedSources', {});
    assert.deepEqual(r.body.sources.map((s) => s.path), [PROG]);
  });

  test('restart keeps breakpoint ids; terminate ends the program', async () => {
    let id;
    await start({ program: PROG }, async () => {
      id = (await dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 2 }] })).body.breakpoints[0].id;
    });
    await stopped();
    const again = stopped();
    await dc.restartRequest({});
    const ev = await again;
    assert.deepEqual(ev.body.hitBreakpointIds, [id]);
    const v = await varsOf((await topFrame()).id);
    assert.equal(v.b.value, '0', 'a fresh run');
    const term = terminatedEv();
    await dc.terminateRequest({});
    await term;
  });

  test('noDebug runs without stopping', async () => {
    const exited = exitedEv();
    await start({ program: PROG, noDebug: true, stopOnEntry: true },
      () => dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 2 }] }));
    assert.equal((await exited).body.exitCode, 0);
  });

  test('bad requests get success false and the session keeps serving', async () => {
    await dc.initializeRequest({ adapterID: 'polydbg' });
    await assert.rejects(dc.customRequest('frobnicate', {}), /unknown command/);
    await assert.rejects(dc.nextRequest({ threadId: 1 }), /no debuggee/);
    await assert.rejects(dc.launchRequest({ program: path.join(dir, 'missing.kite') }), /missing\.kite|no such file/);
    await assert.rejects(dc.customRequest('setBreakpoints', { source: 7, breakpoints: 'x' }), /bad arguments/);
    await assert.rejects(dc.launchRequest({ program: PROG, cwd: '/' }), /cwd/);
    await dc.launchRequest({ program: PROG, stopOnEntry: true });
    await assert.rejects(dc.stackTraceRequest({ threadId: 1 }), /not been started/);
    await dc.configurationDoneRequest();
    await stopped();
    await assert.rejects(dc.evaluateRequest({ expression: '1 +', context: 'repl' }));
    await assert.rejects(dc.scopesRequest({ frameId: 99 }), /frame/);
    await assert.rejects(dc.variablesRequest({ variablesReference: 12345 }), /reference/);
    await assert.rejects(dc.customRequest('readMemory', { memoryReference: '0x0', count: 4 }), /not supported/);
    assert.equal((await topFrame()).line, 1, 'still serving');
  });

  test('cancel of a finished request is harmless', async () => {
    await dc.initializeRequest({ adapterID: 'polydbg' });
    await dc.customRequest('cancel', { requestId: 1 });
  });
});

describe('kite over --listen', () => {
  test('a wrong token ends the connection; the right one debugs; a vanished client ends the program', async (t) => {
    const tokenFile = write('token', 'sesame\n');
    const srv = spawn(POLYDBG, ['dap', '--listen', '127.0.0.1:0', '--token-file', tokenFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    t.after(() => srv.kill());
    const port = await new Promise((resolve, reject) => {
      let buf = '';
      srv.stderr.on('data', (d) => { buf += d; const m = /serving on [^:]+:(\d+)/.exec(buf); if (m) resolve(Number(m[1])); });
      srv.on('exit', () => reject(new Error('server exited: ' + buf)));
    });
    const bad = new DebugClient('', '', 'polydbg');
    await bad.start(port);
    await bad.initializeRequest({ adapterID: 'polydbg' });
    await assert.rejects(bad.launchRequest({ program: PROG, token: 'guess' }), /unauthorized/);
    bad.stop();
    const good = new DebugClient('', '', 'polydbg');
    await good.start(port);
    await good.initializeRequest({ adapterID: 'polydbg' });
    await assert.rejects(good.threadsRequest(), /unauthorized/);
    await Promise.all([
      good.waitForEvent('initialized').then(() => good.configurationDoneRequest()),
      good.launchRequest({ program: LOOP, token: 'sesame' }),
    ]);
    await new Promise((r) => setTimeout(r, 100));
    good._socket.destroy(); // mid-run, no disconnect
    // the server is still there for the next client
    const next = new DebugClient('', '', 'polydbg');
    await next.start(port);
    await next.initializeRequest({ adapterID: 'polydbg' });
    next._socket.destroy();
  });
});
