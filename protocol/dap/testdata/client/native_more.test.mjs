// More of the native suite: cwd and env, detach, threads, data breakpoints and modules of
// a C program under gdbserver, through VS Code's DebugClient. NATIVE_EXE is native_more.c
// built with -g -pthread, NATIVE_SRC its source.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Session, line, gone } from './common.mjs';

const EXE = process.env.NATIVE_EXE, SRC = process.env.NATIVE_SRC;
assert.ok(EXE && SRC, 'set NATIVE_EXE and NATIVE_SRC');

let s;
afterEach(async () => { await s.stop(); });

async function freePort() {
  return new Promise((resolve) => { const l = net.createServer(); l.listen(0, '127.0.0.1', () => { const p = l.address().port; l.close(() => resolve(p)); }); });
}

describe('native under gdbserver, more', () => {
  test('cwd and env: the program runs in that directory with that environment', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dap-cwd-')));
    s = new Session();
    await s.start({ kind: 'native', program: EXE, cwd: dir, env: { POLYDBG_DAP_VAR: 'hello there', HOME: null } });
    await s.outputHas('stdout', `cwd ${dir} var hello there\n`);
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('cwd that is not a directory, and cwd for a Kite program, are refused', async () => {
    s = new Session();
    await s.dc.start();
    await s.dc.initializeRequest({ adapterID: 'polydbg' });
    await assert.rejects(s.dc.launch({ kind: 'native', program: EXE, cwd: '/nonexistent/dir' }), /not a directory/);
    const kite = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dap-cwd-')), 'p.kite');
    fs.writeFileSync(kite, 'print(1)\n');
    await assert.rejects(s.dc.launch({ program: kite, cwd: os.tmpdir() }), /for native programs/);
  });

  test('disconnect from an attached program lets it run on (detach)', async (t) => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dap-detach-')), 'pid');
    const port = await freePort();
    const gs = spawn('gdbserver', ['--once', `127.0.0.1:${port}`, EXE, 'loop', pidFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    t.after(() => gs.kill('SIGKILL'));
    await new Promise((resolve) => {
      let buf = '';
      gs.stderr.on('data', (d) => { buf += d; if (buf.includes('Listening on port')) resolve(); });
    });
    s = new Session();
    await s.attach({ address: `127.0.0.1:${port}`, elf: EXE },
      () => s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'usleep' }, { name: 'main' }] }));
    await s.stoppedAt('function breakpoint');
    await s.dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    const LOOP = line(SRC, 'loop');
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: LOOP }] });
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', LOOP)]);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(pid > 0);
    await s.dc.disconnectRequest({ terminateDebuggee: false });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await gone(pid, 300), false, 'the detached program still runs (its breakpoint is gone)');
    const state = () => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    assert.ok(['S', 'R'].includes(state()), `not stopped by a tracer: state ${state()}`);
    process.kill(pid, 'SIGKILL');
    assert.ok(await gone(pid));
  });

  test('threads: the real threads, stacks and steps per thread, stops with their thread', async () => {
    const WORKER = line(SRC, 'worker');
    s = new Session();
    await s.start({ kind: 'native', program: EXE, args: ['threads'] },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: WORKER }] }));
    const ev = await s.stoppedAt('breakpoint');
    const tid = ev.body.threadId;
    assert.equal(ev.body.allThreadsStopped, true);
    const threads = (await s.dc.threadsRequest()).body.threads;
    assert.ok(threads.length >= 2, JSON.stringify(threads));
    assert.ok(threads.some((t) => t.id === tid), `the stopped thread ${tid} is listed: ${JSON.stringify(threads)}`);
    const main = Math.min(...threads.map((t) => t.id));
    assert.notEqual(tid, main, 'a worker stopped, not the main thread');
    const started = s.events.filter((e) => e.event === 'thread' && e.body.reason === 'started').map((e) => e.body.threadId);
    assert.ok(started.includes(tid) && started.includes(main), `thread events before the stop: ${JSON.stringify(started)}`);
    const ws = (await s.dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
    assert.equal(ws[0].name, 'worker');
    assert.equal(ws[0].line, WORKER);
    const id0 = (await s.dc.evaluateRequest({ expression: 'id', frameId: ws[0].id, context: 'watch' })).body.result;
    const ms = (await s.dc.stackTraceRequest({ threadId: main })).body.stackFrames;
    console.log('main thread stack', JSON.stringify(ms.map((f) => [f.id, f.name, f.line])));
    assert.ok(ms.length > 0 && ms[0].name !== 'worker', JSON.stringify(ms));
    assert.ok(ms.every((f) => !ws.some((w) => w.id === f.id)), 'frame ids name their thread');
    // back to the worker's frame: its variables again
    assert.equal((await s.dc.evaluateRequest({ expression: 'id', frameId: ws[0].id, context: 'watch' })).body.result, id0);
    const [, step] = await Promise.all([s.dc.nextRequest({ threadId: tid }), s.stopped()]);
    assert.equal(step.body.reason, 'step');
    assert.equal(step.body.threadId, tid, 'the step moved the thread it named');
    const top = (await s.dc.stackTraceRequest({ threadId: tid })).body.stackFrames[0];
    assert.equal(top.line, WORKER + 1);
    const [, other] = await Promise.all([s.dc.continueRequest({ threadId: tid }), s.stopped()]);
    assert.equal(other.body.reason, 'breakpoint');
    assert.notEqual(other.body.threadId, tid, 'the other worker stops in its own thread');
    const os2 = (await s.dc.stackTraceRequest({ threadId: other.body.threadId })).body.stackFrames;
    assert.equal(os2[0].name, 'worker');
    const id1 = (await s.dc.evaluateRequest({ expression: 'id', frameId: os2[0].id, context: 'watch' })).body.result;
    assert.deepEqual([id0, id1].sort(), ['0', '1']);
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [] });
    await s.dc.continueRequest({ threadId: other.body.threadId });
    await s.outputHas('stdout', 'threads 1 2\n');
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('step into a call: stepInTargets lists the line\'s calls in order, stepIn with a target enters that one', async () => {
    const CALLS = line(SRC, 'calls');
    s = new Session();
    await s.start({ kind: 'native', program: EXE, args: ['calls'] },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: CALLS }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsStepInTargetsRequest, true);
    const stop = await s.stoppedAt('breakpoint', CALLS);
    const top = await s.top();
    const targets = (await s.dc.stepInTargetsRequest({ frameId: top.id })).body.targets;
    assert.deepEqual(targets.map((t) => t.label), ['sq', 'sq', 'add']);
    const [, step] = await Promise.all([s.dc.stepInRequest({ threadId: stop.body.threadId, targetId: targets[2].id }), s.stopped()]);
    assert.equal(step.body.reason, 'step');
    const frames = (await s.dc.stackTraceRequest({ threadId: stop.body.threadId })).body.stackFrames;
    assert.deepEqual(frames.slice(0, 2).map((f) => f.name), ['add', 'main']);
    assert.equal((await s.dc.evaluateRequest({ expression: 'a + b', frameId: frames[0].id, context: 'watch' })).body.result, '13');
    await s.dc.continueRequest({ threadId: stop.body.threadId });
    await s.outputHas('stdout', 'calls 13\n');
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('data breakpoints: a write to a global stops with its old and new value, where its condition holds', {
    skip: process.env.NO_HW_WATCH ? "this machine's debug registers do not trigger (gdb's watchpoints do not stop either)" : false,
  }, async () => {
    const WRITE = line(SRC, 'write');
    s = new Session();
    await s.start({ kind: 'native', program: EXE, args: ['watch'] },
      () => s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'main' }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDataBreakpoints, true);
    await s.stoppedAt('function breakpoint');
    const top = await s.top();
    const scopes = (await s.dc.scopesRequest({ frameId: top.id })).body.scopes;
    const globals = scopes.find((x) => x.name === 'Globals');
    assert.ok(globals, scopes.map((x) => x.name).join());
    const info = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: globals.variablesReference, name: 'counter', frameId: top.id });
    assert.ok(info.body.dataId, JSON.stringify(info.body));
    assert.deepEqual(info.body.accessTypes, ['write', 'read', 'readWrite']);
    const regs = scopes.find((x) => x.name === 'Registers');
    const no = await s.dc.customRequest('dataBreakpointInfo', { variablesReference: regs.variablesReference, name: 'rax', frameId: top.id });
    assert.equal(no.body.dataId, null, 'a register is not watched');
    const set = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId, accessType: 'write', condition: 'counter > 5' },
      { dataId: info.body.dataId, accessType: 'write', hitCondition: '2' }, { dataId: 'garbage' }] });
    const [bp, hit, bad] = set.body.breakpoints;
    assert.equal(bp.verified, true, JSON.stringify(bp));
    assert.equal(hit.verified, false);
    assert.match(bad.message, /bad dataId/);
    await s.dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    // the condition is false at the first write (0 -> 5): the program goes on to the second
    const [, ev] = await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stopped()]);
    assert.equal(ev.body.reason, 'data breakpoint', JSON.stringify(ev.body));
    assert.deepEqual(ev.body.hitBreakpointIds, [bp.id]);
    assert.equal(ev.body.text, 'counter: 5 -> 10');
    const at = await s.top();
    assert.equal(at.name, 'main');
    assert.ok(Math.abs(at.line - WRITE) <= 1, `stopped at line ${at.line}, the write is at ${WRITE}`);
    const again = await s.dc.customRequest('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
    assert.equal(again.body.breakpoints[0].id, bp.id, 'an unchanged data breakpoint keeps its id');
    // a step over the line that writes stops at the write
    let st = (await Promise.all([s.dc.nextRequest({ threadId: ev.body.threadId }), s.stopped()]))[1];
    if (st.body.reason === 'step') st = (await Promise.all([s.dc.nextRequest({ threadId: ev.body.threadId }), s.stopped()]))[1];
    if (st.body.reason === 'step') st = (await Promise.all([s.dc.nextRequest({ threadId: ev.body.threadId }), s.stopped()]))[1];
    assert.equal(st.body.reason, 'data breakpoint', JSON.stringify(st.body));
    assert.equal(st.body.text, 'counter: 10 -> 15');
    await s.dc.customRequest('setDataBreakpoints', { breakpoints: [] });
    await s.dc.continueRequest({ threadId: 1 });
    await s.outputHas('stdout', 'counter 15\n');
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('modules: the executable and the libraries it loaded, told by module events as they appear', async () => {
    s = new Session();
    const events = [];
    s.dc.on('module', (e) => events.push(e.body));
    await s.start({ kind: 'native', program: EXE, args: ['dlopen'], stopOnEntry: true });
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsModulesRequest, true);
    await s.stoppedAt('entry');
    const atEntry = events.length;
    assert.ok(events.some((e) => e.reason === 'new' && e.module.path === EXE), JSON.stringify(events));
    assert.ok(events.some((e) => e.reason === 'new' && /libc\.so/.test(e.module.name)), JSON.stringify(events));
    const OPENED = line(SRC, 'dlopened'), CLOSED = line(SRC, 'dlclosed');
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: OPENED }, { line: CLOSED }] });
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', OPENED)]);
    const loaded = events.slice(atEntry);
    assert.ok(loaded.some((e) => e.reason === 'new' && e.module.name === 'libm.so.6'), `dlopen told: ${JSON.stringify(loaded)}`);
    const all = (await s.dc.modulesRequest({})).body;
    assert.ok(all.totalModules >= 2, JSON.stringify(all));
    const exe = all.modules.find((m) => m.path === EXE);
    assert.equal(exe.symbolStatus, 'Symbols loaded');
    assert.ok(all.modules.some((m) => /libc\.so/.test(m.name) && m.addressRange.startsWith('0x')), JSON.stringify(all.modules));
    const page = (await s.dc.customRequest('modules', { startModule: 1, moduleCount: 1 })).body; // DebugClient's modulesRequest drops its arguments
    assert.equal(page.modules.length, 1);
    assert.equal(page.totalModules, all.totalModules);
    assert.deepEqual(page.modules[0], all.modules[1]);
    const before = events.length;
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', CLOSED)]);
    assert.ok(events.slice(before).some((e) => e.reason === 'removed' && e.module.name === 'libm.so.6'), JSON.stringify(events.slice(before)));
  });
  test('a function breakpoint on a library function before the run: on the PLT entry, then on the function once loaded', async () => {
    s = new Session();
    const changed = [];
    s.dc.on('breakpoint', (e) => changed.push(e.body));
    let set;
    await s.start({ kind: 'native', program: EXE }, async () => {
      set = (await s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'getcwd' }, { name: 'nosuch' }] })).body.breakpoints;
    });
    assert.equal(set[0].verified, true, JSON.stringify(set));
    assert.equal(set[1].verified, false, JSON.stringify(set));
    const ev = await s.stoppedAt('function breakpoint');
    assert.deepEqual(ev.body.hitBreakpointIds, [set[0].id]);
    const frames = (await s.dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.match(frames[0].name, /getcwd$/, JSON.stringify(frames)); // (__GI___getcwd where libc's debug information is installed)
    assert.equal(frames[1].name, 'main', JSON.stringify(frames));
    const moved = changed.find((b) => b.reason === 'changed' && b.breakpoint.id === set[0].id);
    assert.ok(moved, `a breakpoint event moved it: ${JSON.stringify(changed)}`);
    assert.notEqual(moved.breakpoint.instructionReference, set[0].instructionReference, JSON.stringify([moved, set[0]]));
    await s.dc.continueRequest({ threadId: 1 });
    assert.equal((await s.exited()).body.exitCode, 0);
  });
});
