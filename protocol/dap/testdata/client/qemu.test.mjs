// The firmware suite: Cortex-M3 firmware in QEMU (lm3s6965evb) debugged through
// `polydbg dap` by VS Code's DebugClient. FW_ELF is the firmware, FW_SRC its source.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Session, line } from './common.mjs';

const ELF = process.env.FW_ELF, SRC = process.env.FW_SRC;
assert.ok(ELF && SRC, 'set FW_ELF and FW_SRC');
const BASE = line(SRC, 'fact_base'), REC = line(SRC, 'fact_rec');

let s;
afterEach(async () => { await s.stop(); });

describe('QEMU firmware', () => {
  test('breakpoint with hit condition, locals, registers, memory, instruction step, step out, terminate', async () => {
    s = new Session();
    await s.start({ kind: 'qemu', machine: 'lm3s6965evb', elf: ELF },
      () => s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: REC, hitCondition: '== 3' }] }));
    assert.ok(s.events.some((e) => e.event === 'progressStart'));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsWriteMemoryRequest, true);
    await s.stoppedAt('breakpoint', REC);
    const st = await s.dc.stackTraceRequest({ threadId: 1 });
    assert.deepEqual(st.body.stackFrames.slice(0, 3).map((f) => f.name), ['fact', 'fact', 'fact']);
    const top = st.body.stackFrames[0];
    assert.equal((await s.vars(top.id, 'Locals')).n.value, '3');
    assert.equal(caps.supportsSetExpression, true);
    const se = await s.dc.customRequest('setExpression', { expression: 'sample.c[1]', value: "'A'", frameId: top.id });
    assert.equal(se.body.value, "65 'A'");
    assert.equal((await s.dc.evaluateRequest({ expression: 'sample.c[1]', frameId: top.id, context: 'watch' })).body.result, "65 'A'");
    const regs = await s.vars(top.id, 'Registers');
    assert.ok(regs.pc && regs.sp, Object.keys(regs).join());
    const ram = await s.dc.customRequest('readMemory', { memoryReference: '0x20000000', count: 16 });
    assert.equal(Buffer.from(ram.body.data, 'base64').length, 16);
    await s.dc.customRequest('writeMemory', { memoryReference: '0x20000000', data: ram.body.data });
    const pc0 = BigInt(top.instructionPointerReference);
    await Promise.all([s.dc.stepInRequest({ threadId: 1, granularity: 'instruction' }), s.stoppedAt('step')]);
    const pc1 = BigInt((await s.top()).instructionPointerReference);
    assert.ok(pc1 > pc0 && pc1 - pc0 <= 4n, `one Thumb instruction: ${pc0} -> ${pc1}`);
    await s.dc.setBreakpointsRequest({ source: { path: SRC }, breakpoints: [{ line: BASE }] });
    await Promise.all([s.dc.continueRequest({ threadId: 1 }), s.stoppedAt('breakpoint', BASE)]);
    assert.equal((await s.vars((await s.top()).id, 'Locals')).n.value, '1');
    await Promise.all([s.dc.stepOutRequest({ threadId: 1 }), s.stoppedAt('step', REC)]);
    await Promise.all([s.dc.terminateRequest({}), s.terminated()]);
  });

  test('a client that goes away mid-run leaves no QEMU behind', async () => {
    s = new Session();
    await s.start({ kind: 'qemu', machine: 'lm3s6965evb', elf: ELF });
    const qemus = () => { try { return execFileSync('pgrep', ['-f', ELF]).toString().trim(); } catch { return ''; } };
    assert.notEqual(qemus(), '', 'QEMU runs the firmware');
    const adapter = s.dc._adapterProcess;
    const exited = new Promise((r) => adapter.on('exit', r));
    adapter.stdin.end(); // no disconnect: the client is just gone
    await exited;
    for (let i = 0; i < 100 && qemus() !== ''; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(qemus(), '', 'no QEMU left');
  });
});
