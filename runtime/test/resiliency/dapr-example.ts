/** Dapr's documented complete Resiliency example (docs.dapr.io, operations/resiliency/resiliency-overview), as its users copy it. */
export const DAPR_EXAMPLE = `apiVersion: dapr.io/v1alpha1
kind: Resiliency
metadata:
  name: myresiliency
scopes:
  - app1
  - app2
spec:
  policies:
    timeouts:
      general: 5s
      important: 60s
      largeResponse: 10s
    retries:
      pubsubRetry:
        policy: constant
        duration: 5s
        maxRetries: 10
      retryForever:
        policy: exponential
        maxInterval: 15s
        maxRetries: -1 # retry indefinitely
      important:
        policy: constant
        duration: 5s
        maxRetries: 30
      someOperation:
        policy: exponential
        maxInterval: 15s
      largeResponse:
        policy: constant
        duration: 5s
        maxRetries: 3
    circuitBreakers:
      simpleCB:
        maxRequests: 1
        timeout: 30s 
        trip: consecutiveFailures >= 5
      pubsubCB:
        maxRequests: 1
        interval: 8s
        timeout: 45s
        trip: consecutiveFailures > 8
  targets:
    apps:
      appB:
        timeout: general
        retry: important
        circuitBreaker: simpleCB
    actors:
      myActorType:
        timeout: general
        retry: important
        circuitBreaker: simpleCB
        circuitBreakerScope: both ## 
        circuitBreakerCacheSize: 5000
    components:
      statestore1:
        outbound:
          timeout: general
          retry: retryForever
          circuitBreaker: simpleCB
      pubsub1:
        outbound:
          retry: pubsubRetry
          circuitBreaker: pubsubCB
      pubsub2:
        outbound:
          retry: pubsubRetry
          circuitBreaker: pubsubCB
        inbound:
          timeout: general
          retry: important
          circuitBreaker: pubsubCB
`;
