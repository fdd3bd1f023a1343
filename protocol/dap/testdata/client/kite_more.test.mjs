// More of the Kite suite: disassembly of a plain Kite file and goto targets, through
// VS Code's DebugClient against `polydbg dap`.
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from './common.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'polydbg-dap-more-'));
const PROG = path.join(dir, 'prog.kite');
fs.writeFileSync(PROG, `fn add(a, b) {
    let s = a + b
    s = s * 10
    return s
}
let total = 0
for i in range(0, 3) {
    total = add(total, i)
}
print("total \${total}")
`);

let s;
afterEach(async () => { await s.stop(); });

describe('kite, more', () => {
  test('disassemble a plain Kite file: bytecode with its source lines, filler outside', async () => {
    s = new Session();
    await s.start({ program: PROG }, () => s.dc.setBreakpointsRequest({ source: { path: PROG }, breakpoints: [{ line: 3 }] }));
    const caps = s.events.find((e) => e.event === 'capabilities').body.capabilities;
    assert.equal(caps.supportsDisassembleRequest, true);
    await s.stoppedAt('breakpoint', 3);
    const pc = (await s.top()).instructionPointerReference;
    const dis = await s.dc.disassembleRequest({ memoryReference: pc, instructionOffset: -2, instructionCount: 5 });
    const ins = dis.body.instructions;
    assert.equal(ins.length, 5);
    assert.equal(ins[2].address, pc);
    assert.equal(ins[2].line, 3);
    assert.equal(ins[2].symbol, 'add');
    assert.equal(ins[2].location.path, PROG);
    assert.ok(ins.every((x) => x.instruction && x.instruction !== '??'), JSON.stringify(ins));
    assert.equal(BigInt(ins[3].address), BigInt(pc) + 1n, 'one address per instruction');
    const start = await s.dc.disassembleRequest({ memoryReference: '0x0', instructionOffset: -1, instructionCount: 2 });
    assert.equal(start.body.instructions[0].presentationHint, 'invalid', 'before the program: filler');
    assert.equal(start.body.instructions[1].address, '0x0');
    const end = await s.dc.disassembleRequest({ memoryReference: '0x100000', instructionCount: 2 });
    assert.deepEqual(end.body.instructions.map((x) => x.presentationHint), ['invalid', 'invalid'], 'after the program: filler');
  });
});
