/**
 * Who may have pods injected: the Kubernetes controllers that create pods, extra service accounts from
 * `--allowed-service-accounts` (namespace:name globs) and members of `--allowed-groups`. A pod created by anyone
 * else is admitted unchanged, with a warning.
 */

/** The kube-controller-manager service accounts that create pods (Deployments and CronJobs only create ReplicaSets and Jobs). */
export const POD_CREATING_CONTROLLERS = [
  'kube-system:replicaset-controller',
  'kube-system:replication-controller',
  'kube-system:job-controller',
  'kube-system:statefulset-controller',
  'kube-system:daemon-set-controller',
] as const;

export interface AdmissionUser {
  readonly username?: string;
  readonly groups?: readonly string[];
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^:]*').replaceAll('?', '[^:]');
  return new RegExp(`^${body}$`);
}

export class CreatorTrust {
  private readonly accounts: readonly RegExp[];
  private readonly groups: ReadonlySet<string>;

  constructor(opts: { extraServiceAccounts: readonly string[]; groups: readonly string[] }) {
    this.accounts = [...POD_CREATING_CONTROLLERS, ...opts.extraServiceAccounts].map(globToRegExp);
    this.groups = new Set(opts.groups);
  }

  isTrusted(user: AdmissionUser | undefined): boolean {
    if ((user?.groups ?? []).some((g) => this.groups.has(g))) return true;
    const prefix = 'system:serviceaccount:';
    const name = user?.username ?? '';
    if (!name.startsWith(prefix)) return false;
    const account = name.slice(prefix.length);
    return this.accounts.some((re) => re.test(account));
  }
}
