/**
 * Reading and checking the Kubernetes manifests in deploy/k8s without a cluster: YAML parsing, the
 * Kubernetes OpenAPI schemas (kubernetes-models, generated from the upstream API definitions), a
 * strict unknown-field check the schemas alone do not make, and small helpers for the cross-file
 * tests (label selectors, named ports, quantities).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';

const require = createRequire(import.meta.url);
const SCHEMAS_DIR = join(dirname(require.resolve('kubernetes-models')), '_schemas');

/**
 * A compiled schema of kubernetes-models as a bare function. The package does not export its
 * _schemas folder, so the file is loaded by its path.
 */
function schema(name: string): (data: unknown) => boolean {
  const module = require(join(SCHEMAS_DIR, `${name}.js`)) as { validate: (data: unknown) => boolean };
  return module.validate;
}

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const K8S_DIR = join(REPO_ROOT, 'deploy/k8s');

/** A parsed manifest: plain JSON data, typed loosely (the schema check is what types it). */
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
};

export interface LoadedManifest {
  file: string;
  manifest: Manifest;
}

interface Kind {
  /** The model class: its static apiVersion and kind, and validate() against the schema. */
  model: { apiVersion: string; kind: string; new (data: never): { validate(): void } };
  /** The same schema as a bare function, for the unknown-field check (see unknownFields). */
  schema: (data: unknown) => boolean;
}

const KINDS: readonly Kind[] = [
  { model: ConfigMap, schema: schema('IoK8sApiCoreV1ConfigMap') },
  { model: Secret, schema: schema('IoK8sApiCoreV1Secret') },
  { model: Service, schema: schema('IoK8sApiCoreV1Service') },
  { model: Deployment, schema: schema('IoK8sApiAppsV1Deployment') },
  { model: HorizontalPodAutoscaler, schema: schema('IoK8sApiAutoscalingV2HorizontalPodAutoscaler') },
  { model: PodDisruptionBudget, schema: schema('IoK8sApiPolicyV1PodDisruptionBudget') },
  { model: NetworkPolicy, schema: schema('IoK8sApiNetworkingV1NetworkPolicy') },
];

export function kindOf(manifest: { apiVersion?: unknown; kind?: unknown }): Kind | undefined {
  return KINDS.find(({ model }) => model.apiVersion === manifest.apiVersion && model.kind === manifest.kind);
}

/** Every YAML file in deploy/k8s except the kustomization (which is not a Kubernetes object). */
export function manifestFiles(): string[] {
  return readdirSync(K8S_DIR)
    .filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml')
    .sort();
}

/** Parses every document of a YAML file; a syntax error or warning is an error. */
export function parseYamlFile(path: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(path, 'utf8'), { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(documents)) throw new Error(`${path}: not a YAML stream`);
  return documents
    .filter((document) => document.contents !== null)
    .map((document) => {
      const problems = [...document.errors, ...document.warnings];
      if (problems.length > 0) throw new Error(`${path}: ${problems.map((problem) => problem.message).join('; ')}`);
      return document.toJS() as unknown;
    });
}

export function loadManifests(): LoadedManifest[] {
  return manifestFiles().flatMap((file) =>
    parseYamlFile(join(K8S_DIR, file)).map((manifest) => ({ file, manifest: manifest as Manifest })),
  );
}

/** Throws the schema's message when the manifest breaks its kind's schema. */
export function validateManifest(manifest: Manifest): void {
  const kind = kindOf(manifest);
  if (kind === undefined) throw new Error(`no schema here for ${manifest.apiVersion} ${manifest.kind}`);
  new kind.model(manifest as never).validate();
}

/**
 * Fields the schema does not define, as JSON paths. kubernetes-models' schemas allow additional
 * properties, so a misspelt field (`readinesProbe`) would pass validate() and be refused only by
 * the API server (kubectl's strict field validation), or silently dropped by an older one. The
 * compiled schema reads every property it defines, and enumerates the keys of free-form maps
 * (labels, data, resources); so the properties it never reads are exactly the unknown ones.
 */
export function unknownFields(manifest: Manifest): string[] {
  const kind = kindOf(manifest);
  if (kind === undefined) throw new Error(`no schema here for ${manifest.apiVersion} ${manifest.kind}`);
  const read = new Map<object, Set<PropertyKey>>();
  const watch = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const keys = read.get(value) ?? new Set<PropertyKey>();
    read.set(value, keys);
    return new Proxy(value, {
      get(target, key, receiver) {
        keys.add(key);
        return watch(Reflect.get(target, key, receiver));
      },
    });
  };
  kind.schema(watch(manifest));
  const unknown: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, `${path}/${index}`));
    } else if (value !== null && typeof value === 'object') {
      const keys = read.get(value) ?? new Set<PropertyKey>();
      for (const [key, child] of Object.entries(value)) {
        if (!keys.has(key)) unknown.push(`${path}/${key}`);
        else walk(child, `${path}/${key}`);
      }
    }
  };
  walk(manifest, '');
  return unknown;
}

/** DNS-1123 label: what the API server requires of Service names (RFC 1035 style) and most others. */
export const DNS_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Whether a matchLabels / selector map selects a pod with these labels. */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (selector === undefined || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/** A Kubernetes quantity (`1Gi`, `160Mi`, `100m`, `2`) as a number of base units (bytes, cores). */
export function parseQuantity(quantity: string | number): number {
  if (typeof quantity === 'number') return quantity;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T|m)?$/.exec(quantity);
  if (match === null) throw new Error(`not a quantity this test understands: ${quantity}`);
  const factors: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    m: 1e-3,
  };
  return Number(match[1]) * (match[2] === undefined ? 1 : factors[match[2]]!);
}

export const MIB = 2 ** 20;
