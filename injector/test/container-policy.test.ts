import type { V1Container } from '@kubernetes/client-node';
import { expect } from 'chai';
import { containerPolicyProblems, type ContainerPolicyLevel } from '../src/components/container-policy.js';

const base: V1Container = { name: 'comp', image: 'example/comp:1' };
/** Typed as the Kubernetes schema types them: a field name or value the schema does not have would not compile. */
const cases: { what: string; container: V1Container; field: string; deniedFrom: Exclude<ContainerPolicyLevel, 'privileged'> }[] = [
  { what: 'privileged', container: { ...base, securityContext: { privileged: true } }, field: 'securityContext.privileged: true', deniedFrom: 'baseline' },
  { what: 'SYS_ADMIN added', container: { ...base, securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }, field: 'securityContext.capabilities.add: "SYS_ADMIN"', deniedFrom: 'baseline' },
  { what: 'CAP_NET_RAW added', container: { ...base, securityContext: { capabilities: { add: ['CAP_NET_RAW'] } } }, field: 'securityContext.capabilities.add: "CAP_NET_RAW"', deniedFrom: 'baseline' },
  { what: 'CHOWN added', container: { ...base, securityContext: { capabilities: { add: ['CHOWN'] } } }, field: 'securityContext.capabilities.add: "CHOWN"', deniedFrom: 'restricted' },
  { what: 'host port', container: { ...base, ports: [{ containerPort: 8080, hostPort: 8080 }] }, field: 'ports[].hostPort: 8080', deniedFrom: 'baseline' },
  { what: 'seccomp Unconfined', container: { ...base, securityContext: { seccompProfile: { type: 'Unconfined' } } }, field: 'securityContext.seccompProfile.type: "Unconfined"', deniedFrom: 'baseline' },
  { what: 'AppArmor Unconfined', container: { ...base, securityContext: { appArmorProfile: { type: 'Unconfined' } } }, field: 'securityContext.appArmorProfile.type: "Unconfined"', deniedFrom: 'baseline' },
  { what: 'procMount Unmasked', container: { ...base, securityContext: { procMount: 'Unmasked' } }, field: 'securityContext.procMount: "Unmasked"', deniedFrom: 'baseline' },
  { what: 'Windows host process', container: { ...base, securityContext: { windowsOptions: { hostProcess: true } } }, field: 'securityContext.windowsOptions.hostProcess: true', deniedFrom: 'baseline' },
  { what: 'SELinux user', container: { ...base, securityContext: { seLinuxOptions: { user: 'system_u' } } }, field: 'securityContext.seLinuxOptions.user: "system_u"', deniedFrom: 'baseline' },
  { what: "svcd's data volume", container: { ...base, volumeMounts: [{ name: 'svc-data', mountPath: '/steal' }] }, field: 'volumeMounts[].name: "svc-data"', deniedFrom: 'baseline' },
  { what: "svcd's invocation token", container: { ...base, volumeMounts: [{ name: 'svc-invoke-token', mountPath: '/steal' }] }, field: 'volumeMounts[].name: "svc-invoke-token"', deniedFrom: 'baseline' },
  { what: 'privilege escalation', container: { ...base, securityContext: { allowPrivilegeEscalation: true } }, field: 'securityContext.allowPrivilegeEscalation: true', deniedFrom: 'restricted' },
  { what: 'runAsNonRoot false', container: { ...base, securityContext: { runAsNonRoot: false } }, field: 'securityContext.runAsNonRoot: false', deniedFrom: 'restricted' },
  { what: 'root user', container: { ...base, securityContext: { runAsUser: 0 } }, field: 'securityContext.runAsUser: 0', deniedFrom: 'restricted' },
];

describe('injector component container policy (Pod Security Standard levels)', () => {
  for (const c of cases) {
    it(`${c.what}: denied at ${c.deniedFrom === 'baseline' ? 'baseline and restricted' : 'restricted only'}, naming the field; allowed at privileged`, () => {
      for (const level of ['restricted', 'baseline', 'privileged'] as const) {
        const problems = containerPolicyProblems('store', c.container, level);
        const denied = level === 'restricted' || (level === 'baseline' && c.deniedFrom === 'baseline');
        expect(problems, level).to.deep.equal(denied ? [`component "store": container "comp" sets ${c.field}, which the component container policy "${level}" forbids (svc-injector --component-container-policy, chart value injector.componentContainerPolicy)`] : []);
      }
    });
  }

  it('allows what the restricted standard allows: NET_BIND_SERVICE, a non-root user, hardening, the socket volume, container ports', () => {
    const hardened: V1Container = {
      ...base,
      ports: [{ containerPort: 80 }],
      volumeMounts: [{ name: 'svc-components-sockets', mountPath: '/tmp/svc-components-sockets' }],
      securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, seccompProfile: { type: 'RuntimeDefault' }, readOnlyRootFilesystem: true },
    };
    expect(containerPolicyProblems('store', hardened, 'restricted')).to.deep.equal([]);
    expect(containerPolicyProblems('store', base, 'restricted')).to.deep.equal([]);
  });
});
