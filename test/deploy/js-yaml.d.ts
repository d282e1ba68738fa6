/**
 * The one function of js-yaml (a transitive dependency, shipped without types) the deployment
 * tests use: parses one YAML document (merge keys `<<` included) into plain values.
 */
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
