// The part of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module "autocannon" {
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    method?: "GET" | "POST";
    body?: string;
    headers?: Record<string, string>;
    timeout?: number;
    /** Requests per second across all connections (open loop); unlimited when absent. */
    overallRate?: number;
  };
  type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total?: number;
  };
  export type Result = {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    duration: number;
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
