// The whole extension: start `polydbg dap` (from the polydbg.path setting, else PATH) as the
// debug adapter of the `polydbg` debug type. Everything else is in package.json.
const vscode = require('vscode');

function activate(context) {
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('polydbg', {
    createDebugAdapterDescriptor(session) {
      const cfg = session.configuration;
      if (cfg.server) { // "server": "127.0.0.1:4711": a `polydbg dap --listen` already running
        const [host, port] = cfg.server.split(/:(?=\d+$)/);
        return new vscode.DebugAdapterServer(Number(port), host);
      }
      const exe = vscode.workspace.getConfiguration('polydbg').get('path') || 'polydbg';
      return new vscode.DebugAdapterExecutable(exe, ['dap']);
    },
  }));
}

function deactivate() {}

module.exports = { activate, deactivate };
