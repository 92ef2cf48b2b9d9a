/**
 * What a component container may ask for. Component containers come from Components, which whoever may create
 * Components in a namespace writes: without a check, one could run a privileged container, with host ports or
 * added capabilities, as root, or mounting svcd's own data, inside any app's pod that uses it. The levels are
 * those of the Kubernetes Pod Security Standards, applied to what a container sets explicitly:
 * - `restricted` (default): everything `baseline` forbids, and allowPrivilegeEscalation true, runAsNonRoot false,
 *   runAsUser 0, and added capabilities other than NET_BIND_SERVICE;
 * - `baseline`: privileged, hostPort, capabilities beyond the baseline set, seccomp or AppArmor Unconfined,
 *   procMount Unmasked, Windows hostProcess, custom SELinux user or role; mounts of svcd's own data and invocation token volumes;
 * - `privileged`: anything.
 * Fields a container leaves unset are not required here: the namespace's Pod Security admission still applies
 * to the whole pod. Host namespaces (hostNetwork, hostPID, hostIPC) and hostPath volumes are pod-level: a
 * component container cannot carry them.
 */
import type { V1Container } from '@kubernetes/client-node';
import { DATA_VOLUME_NAME, INVOKE_TOKEN_VOLUME_NAME } from '../patch/names.js';

export const CONTAINER_POLICY_LEVELS = ['restricted', 'baseline', 'privileged'] as const;
export type ContainerPolicyLevel = (typeof CONTAINER_POLICY_LEVELS)[number];

/** Capabilities the baseline standard lets a container add. */
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const RESTRICTED_CAPABILITIES = new Set(['NET_BIND_SERVICE']);

type Finding = { field: string; value: unknown; level: Exclude<ContainerPolicyLevel, 'privileged'> };

function findings(c: V1Container): Finding[] {
  const out: Finding[] = [];
  const sc = c.securityContext ?? {};
  const baseline = (field: string, value: unknown) => out.push({ field, value, level: 'baseline' });
  const restricted = (field: string, value: unknown) => out.push({ field, value, level: 'restricted' });
  if (sc.privileged === true) baseline('securityContext.privileged', true);
  for (const cap of sc.capabilities?.add ?? []) {
    const name = String(cap).toUpperCase().replace(/^CAP_/, '');
    if (!BASELINE_CAPABILITIES.has(name)) baseline('securityContext.capabilities.add', cap);
    else if (!RESTRICTED_CAPABILITIES.has(name)) restricted('securityContext.capabilities.add', cap);
  }
  if (sc.seccompProfile?.type === 'Unconfined') baseline('securityContext.seccompProfile.type', 'Unconfined');
  if (sc.appArmorProfile?.type === 'Unconfined') baseline('securityContext.appArmorProfile.type', 'Unconfined');
  if (sc.procMount === 'Unmasked') baseline('securityContext.procMount', 'Unmasked');
  if (sc.windowsOptions?.hostProcess === true) baseline('securityContext.windowsOptions.hostProcess', true);
  if (sc.seLinuxOptions?.user) baseline('securityContext.seLinuxOptions.user', sc.seLinuxOptions.user);
  if (sc.seLinuxOptions?.role) baseline('securityContext.seLinuxOptions.role', sc.seLinuxOptions.role);
  for (const port of c.ports ?? []) if (port.hostPort !== undefined && port.hostPort !== 0) baseline('ports[].hostPort', port.hostPort);
  // svcd's own volumes: its data, and the token that proves its app to other sidecars.
  for (const mount of c.volumeMounts ?? []) if (mount.name === DATA_VOLUME_NAME || mount.name === INVOKE_TOKEN_VOLUME_NAME) baseline('volumeMounts[].name', mount.name);
  if (sc.allowPrivilegeEscalation === true) restricted('securityContext.allowPrivilegeEscalation', true);
  if (sc.runAsNonRoot === false) restricted('securityContext.runAsNonRoot', false);
  if (sc.runAsUser === 0) restricted('securityContext.runAsUser', 0);
  return out;
}

/** Why `container` of `component` may not be injected at `level`, one reason per field; empty when it may. */
export function containerPolicyProblems(component: string, container: V1Container, level: ContainerPolicyLevel): string[] {
  if (level === 'privileged') return [];
  return findings(container)
    .filter((f) => level === 'restricted' || f.level === 'baseline')
    .map(
      (f) =>
        `component "${component}": container "${container.name}" sets ${f.field}: ${JSON.stringify(f.value)}, which the component container policy "${level}" forbids ` +
        '(svc-injector --component-container-policy, chart value injector.componentContainerPolicy)',
    );
}
