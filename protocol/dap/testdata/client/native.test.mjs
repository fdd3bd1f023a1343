// The native suite: a C program under gdbserver, debugged through `polydbg dap` by VS
// Code's DebugClient. NATIVE_EXE is the program built with -g, NATIVE_SRC its source.
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
const ADD = line(SRC, 'add_body'), CALL = line(SRC, 'call');

let s;
afterEach(async () => { await s.stop(); });

describe('native under gdbserver', () => {
  test('launch with args: progress, breakpoint, stack, registers, memory, step out, output, exit', async () => {
    s = new Session();
    await s.start({ kind: 'native', program: EXE, args: ['one'] },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: ADD, condition: 'b == 2' }] }));
    const names = s.events.map((e) => e.event);
    assert.ok(names.indexOf('progressStart') < names.indexOf('progressEnd'), names.join());
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsReadMemoryRequest, true);
    assert.equal(caps.supportsInstructionBreakpoints, true);
    const ev = await s.stoppedAt('breakpoint', ADD);
    assert.equal(ev.body.hitBreakpointIds.length, 1);
    const st = await s.dc.stackTraceRequest({ threadId: 1 });
    assert.deepEqual(st.body.stackFrames.slice(0, 2).map((f) => f.name), ['add', 'main']);
    assert.equal(st.body.stackFrames[1].line, CALL);
    const top = st.body.stackFrames[0];
    const locals = await s.vars(top.id, 'Locals');
    assert.equal(locals.b.value, '2');
    const regs = await s.vars(top.id, 'Registers');
    assert.ok(regs.rip, Object.keys(regs).join());
    assert.equal(caps.supportsSetVariable, true);
    const scopes = (await s.dc.scopesRequest({ frameId: top.id })).body.scopes;
    const regRef = scopes.find((x) => x.name === 'Registers').variablesReference;
    const set = await s.dc.setVariableRequest({ variablesReference: regRef, name: 'rax', value: '0x1234' });
    assert.equal(set.body.value, '0x1234');
    assert.equal(BigInt((await s.vars(top.id, 'Registers')).rax.value), 0x1234n);
    const localsRef = scopes.find((x) => x.name === 'Locals').variablesReference;
    assert.equal(caps.supportsSetExpression, true);
    const b = await s.dc.setVariableRequest({ variablesReference: localsRef, name: 'b', value: '7' });
    assert.equal(b.body.value, '7');
    const a = await s.dc.customRequest('setExpression', { expression: 'a', value: '0x3', frameId: top.id });
    assert.equal(a.body.value, '3');
    await assert.rejects(s.dc.setVariableRequest({ variablesReference: localsRef, name: 'b', value: '"x"' }), /is not a number|cannot evaluate/);
    assert.equal((await s.dc.evaluateRequest({ expression: 'b', frameId: top.id, context: 'hover' })).body.result, '7');
    const pc = top.instructionPointerReference;
    const mem = await s.dc.customRequest('readMemory', { memoryReference: pc, count: 4 });
    assert.equal(Buffer.from(mem.body.data, 'base64').length, 4);
    const w = await s.dc.customRequest('writeMemory', { memoryReference: pc, data: mem.body.data });
    assert.equal(w.body.bytesWritten, 4);
    await Promise.all([s.dc.stepOutRequest({ threadId: 1 }), s.stoppedAt('step', CALL)]);
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [] });
    await s.dc.continueRequest({ threadId: 1 });
    await s.outputHas('stdout', 'total 17 args 1\n'); // add(1, 2) became add(3, 7)
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test('disassemble: the machine code around the pc, decoded from the function start, with source lines', async () => {
    s = new Session();
    await s.start({ kind: 'native', program: EXE },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: ADD }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDisassembleRequest, true);
    await s.stoppedAt('breakpoint', ADD);
    const pc = (await s.top()).instructionPointerReference;
    assert.ok(pc, 'the frame has an instruction pointer');
    const dis = await s.dc.disassembleRequest({ memoryReference: pc, instructionOffset: -4, instructionCount: 10, resolveSymbols: true });
    const ins = dis.body.instructions;
    assert.equal(ins.length, 10);
    assert.equal(BigInt(ins[4].address), BigInt(pc), JSON.stringify(ins));
    const real = ins.filter((x) => x.presentationHint !== 'invalid');
    assert.ok(real.length >= 5 && real.every((x) => x.instruction && x.symbol === 'add'), JSON.stringify(ins));
    for (let i = 1; i < ins.length; i++) assert.ok(BigInt(ins[i].address) > BigInt(ins[i - 1].address), 'addresses ascend');
    assert.equal(ins[4].line, ADD, 'the pc starts the line of the breakpoint');
    assert.equal(ins[4].location.path, SRC);
    const before = await s.dc.disassembleRequest({ memoryReference: pc, instructionOffset: -1000, instructionCount: 2 });
    assert.deepEqual(before.body.instructions.map((x) => x.presentationHint), ['invalid', 'invalid'], 'before the function: filler');
  });

  test('goto: the pc moves to another line of the function, nothing runs; another function is no target', async () => {
    s = new Session();
    await s.start({ kind: 'native', program: EXE },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: CALL }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsGotoTargetsRequest, true);
    await s.stoppedAt('breakpoint', CALL);
    assert.deepEqual((await s.dc.customRequest('gotoTargets', { source: { path: SRC }, line: ADD })).body.targets, [],
      'add is another function');
    const after = CALL + 2; // the printf after the loop
    const t = (await s.dc.customRequest('gotoTargets', { source: { path: SRC }, line: after })).body.targets;
    assert.equal(t.length, 1);
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [] });
    const [, ev] = await Promise.all([s.dc.customRequest('goto', { threadId: 1, targetId: t[0].id }), s.stopped()]);
    assert.equal(ev.body.reason, 'goto');
    assert.equal((await s.top()).line, after);
    assert.equal((await s.vars((await s.top()).id, 'Locals')).total.value, '0', 'nothing ran');
    await s.dc.continueRequest({ threadId: 1 });
    await s.outputHas('stdout', 'total 0 args 0\n'); // the loop was skipped
    assert.equal((await s.exited()).body.exitCode, 0);
  });

  test("breakpointLocations: the lines gdb's break N binds to N", async () => {
    s = new Session();
    await s.start({ kind: 'native', program: EXE, stopOnEntry: true });
    await s.stoppedAt('entry');
    const r = await s.dc.customRequest('breakpointLocations', { source: { path: SRC }, line: 1, endLine: 24 });
    // gdb -batch -ex 'break N' for N in 1..24 binds to these lines (a function's own line to its first after the prologue)
    assert.deepEqual(r.body.breakpoints.map((b) => b.line), [6, 7, 8, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 23, 24]);
  });

  test('stopOnEntry and a function breakpoint', async () => {
    s = new Session();
    await s.start({ kind: 'native', program: EXE, stopOnEntry: true });
    await s.stoppedAt('entry');
    const r = await s.dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'add' }] });
    assert.equal(r.body.breakpoints[0].verified, true);
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('function breakpoint', ADD)]);
  });

  test('a client that goes away mid-run leaves no process behind', async () => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dap-native-')), 'pid');
    s = new Session();
    await s.start({ kind: 'native', program: EXE, args: [pidFile, 'loop'] });
    while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8') === '') await new Promise((r) => setTimeout(r, 20));
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const adapter = s.dc._adapterProcess;
    const exited = new Promise((r) => adapter.on('exit', r));
    adapter.stdin.end(); // no disconnect: the client is just gone
    await exited;
    assert.ok(await gone(pid), `the program (pid ${pid}) still runs`);
  });

  test('attach to a running gdbserver (HOST:PORT + elf)', async (t) => {
    const port = await new Promise((resolve) => { const l = net.createServer(); l.listen(0, '127.0.0.1', () => { const p = l.address().port; l.close(() => resolve(p)); }); });
    const gs = spawn('gdbserver', ['--once', `127.0.0.1:${port}`, EXE], { stdio: ['ignore', 'ignore', 'pipe'] });
    t.after(() => gs.kill('SIGKILL'));
    await new Promise((resolve) => { // until it listens
      let buf = '';
      gs.stderr.on('data', (d) => { buf += d; if (buf.includes('Listening on port')) resolve(); });
    });
    s = new Session();
    await s.attach({ address: `127.0.0.1:${port}`, elf: EXE },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: ADD }] }));
    await s.stoppedAt('breakpoint', ADD);
    const locals = await s.vars((await s.top()).id, 'Locals');
    assert.equal(locals.b.value, '0');
  });
});
