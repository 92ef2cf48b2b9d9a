/** Starts a new instance from the UI: workflow name, optional instance ID and input, then shows the instance. */
import { api } from './api.js';
import { confirmAction, notify } from './dom.js';
import { showError } from './errors.js';

export async function startWorkflow(): Promise<void> {
  const v = await confirmAction('Start a workflow', 'A worker that registered the workflow runs it.', [
    { name: 'workflowName', label: 'Workflow name' },
    { name: 'instanceId', label: 'Instance ID (empty: generated)' },
    { name: 'input', label: 'Input (JSON, optional)', multiline: true },
  ]);
  if (!v) return;
  const [name, instanceId, input] = [v.workflowName!.trim(), v.instanceId!.trim(), v.input!.trim()];
  if (name === '') return notify('A workflow name is needed to start one.');
  // The SDKs read the input as JSON: text that is not would fail the workflow's first step, not this start.
  if (input !== '' && !isJson(input)) return notify('The input is not JSON: nothing was started.');
  try {
    const { instanceID } = await api.start(name, instanceId, input);
    location.hash = `#/instances/${encodeURIComponent(instanceID)}`;
  } catch (err) {
    showError(err, () => void startWorkflow());
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
