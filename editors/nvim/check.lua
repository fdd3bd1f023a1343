-- A headless check of polydbg with nvim-dap, as it was tried for docs/protocols/dap.md:
--   nvim --headless -u NONE -c 'luafile editors/nvim/check.lua'
-- with POLYDBG (the binary), NVIM_DAP (an nvim-dap checkout) and KITE_FILE (a Kite program with
-- `if n < 2` on line 15, such as examples/demo.kite) in the environment. It sets a conditional
-- breakpoint, runs, evaluates in the stopped frame, steps out, terminates, and writes what it saw
-- to check.out. Set POLYDBG_PORT to use a `polydbg dap --listen` already running instead.
vim.opt.runtimepath:append(os.getenv('NVIM_DAP'))
local dap = require('dap')
local out = {}
local function log(s) table.insert(out, s) end
local port = os.getenv('POLYDBG_PORT')
if port then
  dap.adapters.polydbg = { type = 'server', host = '127.0.0.1', port = tonumber(port) }
else
  dap.adapters.polydbg = { type = 'executable', command = os.getenv('POLYDBG'), args = { 'dap' } }
end
dap.configurations.kite = {
  { type = 'polydbg', request = 'launch', name = 'Kite file', program = '${file}' },
}
local stops = 0
dap.listeners.after.event_stopped['check'] = function(_, body)
  stops = stops + 1
  log('stopped reason=' .. body.reason .. ' thread=' .. tostring(body.threadId))
end
dap.listeners.after.event_output['check'] = function(_, body)
  log('output ' .. body.category .. ': ' .. vim.trim(body.output))
end
dap.listeners.after.event_terminated['check'] = function() log('terminated') end
local function frame() return dap.session() and dap.session().current_frame end

vim.cmd('edit ' .. os.getenv('KITE_FILE'))
vim.bo.filetype = 'kite'
vim.fn.cursor(15, 1)
dap.toggle_breakpoint('n == 1')
dap.continue()
vim.wait(10000, function() return stops >= 1 and frame() end, 20)
local f = frame()
log('frame ' .. f.name .. ' line ' .. f.line)
local done = false
dap.session():request('evaluate', { expression = 'n * 100', frameId = f.id, context = 'repl' }, function(err, r)
  log('evaluate n * 100 = ' .. (r and r.result or tostring(err)))
  done = true
end)
vim.wait(5000, function() return done end, 20)
dap.step_out()
vim.wait(10000, function() return stops >= 2 and frame() and frame().line ~= 15 end, 20)
f = frame()
log('after step_out: frame ' .. f.name .. ' line ' .. f.line .. ' col ' .. f.column)
dap.terminate()
vim.wait(5000, function() return dap.session() == nil end, 20)
vim.fn.writefile(out, 'check.out')
vim.cmd('qa!')
