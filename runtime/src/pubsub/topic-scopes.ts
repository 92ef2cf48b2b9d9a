/**
 * Which topics an app may publish to and subscribe to on a pub/sub component, from the component's metadata:
 * - `allowedTopics: "a,b"`: only these topics exist for every app;
 * - `publishingScopes` / `subscriptionScopes: "app1=a,b;app2="`: a listed app may use only its topics (an empty
 *   list: none); apps not listed are not restricted by it;
 * - `protectedTopics: "p"`: only apps whose scope lists the topic may use it.
 */
export type TopicUse = 'publish' | 'subscribe';

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

function scopeMap(text: string | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of (text ?? '').split(';')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    out.set(entry.slice(0, eq).trim(), new Set(list(entry.slice(eq + 1))));
  }
  return out;
}

export class TopicScopes {
  private constructor(
    private readonly allowed: ReadonlySet<string>,
    private readonly protectedTopics: ReadonlySet<string>,
    private readonly scopes: Record<TopicUse, Map<string, Set<string>>>,
  ) {}

  static fromMetadata(get: (name: string) => string | undefined): TopicScopes {
    return new TopicScopes(new Set(list(get('allowedTopics'))), new Set(list(get('protectedTopics'))), {
      publish: scopeMap(get('publishingScopes')),
      subscribe: scopeMap(get('subscriptionScopes')),
    });
  }

  /** Undefined when allowed, else why not (for the 403's message). */
  refusal(use: TopicUse, appId: string, topic: string): string | undefined {
    if (this.allowed.size > 0 && !this.allowed.has(topic)) return `topic ${topic} is not in the component's allowedTopics`;
    const own = this.scopes[use].get(appId);
    const scopeName = use === 'publish' ? 'publishingScopes' : 'subscriptionScopes';
    if (this.protectedTopics.has(topic) && !own?.has(topic)) return `topic ${topic} is protected and the component's ${scopeName} do not grant it to app ${appId}`;
    if (own && !own.has(topic)) return `the component's ${scopeName} do not grant topic ${topic} to app ${appId}`;
    return undefined;
  }
}
