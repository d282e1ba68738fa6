/**
 * Pure model of the Topic tree view: applies `topicTreeUpdate`s (changed topics only) to a
 * hierarchy split at `/`, sums each subtree's count and rate, keeps its newest time, and
 * flattens the expanded part (or, with a filter, the matches and their ancestors) into the rows
 * the virtualised list draws. Kept apart from React so it is testable without a DOM, and so
 * one update costs one pass over the tree however many topics it names.
 */
import type { TopicNode, TopicTreeUpdate } from '../../../../shared/console-api-topics';

export interface TreeNode {
  /** This level's name (`''` for an empty level, e.g. the start of `/a`). */
  name: string;
  /** The topic this node stands for: the levels up to it joined by `/`. */
  path: string;
  depth: number;
  /** The topic's own figures when messages were seen on exactly this path. */
  own: TopicNode | null;
  children: Map<string, TreeNode>;
  /** Children sorted by name, rebuilt only when one is added. */
  sorted: TreeNode[] | null;
  /** Sums over the node and its subtree (recomputed per update). */
  count: number;
  rate: number;
  lastAt: number | null;
  /** Topics in the subtree, the node's own included. */
  topics: number;
}

/** One drawn row of the list. */
export interface TreeRow {
  node: TreeNode;
  expanded: boolean;
  hasChildren: boolean;
}

export interface TreeSnapshot {
  rows: TreeRow[];
  /** The totals of the last update (null before the first). */
  update: Omit<TopicTreeUpdate, 'nodes'> | null;
  /** Updates applied, to re-render on each. */
  version: number;
}

const newNode = (name: string, path: string, depth: number): TreeNode => ({
  name,
  path,
  depth,
  own: null,
  children: new Map(),
  sorted: null,
  count: 0,
  rate: 0,
  lastAt: null,
  topics: 0,
});

const byName = (a: TreeNode, b: TreeNode): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

export class TopicTreeModel {
  private readonly root = newNode('', '', -1);
  /** Topic → its node: a known topic (most of every update) is placed with one lookup. */
  private readonly byTopic = new Map<string, TreeNode>();
  private readonly expanded = new Set<string>();
  private filter = '';
  private treeId: string | null = null;
  private snap: TreeSnapshot = { rows: [], update: null, version: 0 };
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = (): TreeSnapshot => this.snap;

  /** Starts showing tree `treeId` (empty), or none. */
  reset(treeId: string | null): void {
    this.treeId = treeId;
    this.root.children.clear();
    this.root.sorted = null;
    this.byTopic.clear();
    this.snap = { rows: [], update: null, version: this.snap.version + 1 };
    this.emit();
  }

  get currentTreeId(): string | null {
    return this.treeId;
  }

  /** Applies an update of the shown tree (others are ignored). */
  apply(update: TopicTreeUpdate): void {
    if (update.treeId !== this.treeId) return;
    for (const node of update.nodes) this.place(node);
    const { nodes: _nodes, ...totals } = update;
    void _nodes;
    sum(this.root);
    this.snap = { rows: this.flatten(), update: totals, version: this.snap.version + 1 };
    this.emit();
  }

  toggle(path: string): void {
    if (this.expanded.has(path)) this.expanded.delete(path);
    else this.expanded.add(path);
    this.refresh();
  }

  /** Shows only topics whose path contains `text` (case-insensitive), with their ancestors. */
  setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.refresh();
  }

  /** A node by its path, or null. */
  find(path: string): TreeNode | null {
    let node: TreeNode | undefined = this.root;
    for (const level of path.split('/')) {
      node = node.children.get(level);
      if (!node) return null;
    }
    return node;
  }

  private refresh(): void {
    this.snap = { ...this.snap, rows: this.flatten(), version: this.snap.version + 1 };
    this.emit();
  }

  private place(topicNode: TopicNode): void {
    const known = this.byTopic.get(topicNode.topic);
    if (known) {
      known.own = topicNode;
      return;
    }
    let node = this.root;
    let path = '';
    const levels = topicNode.topic.split('/');
    for (let i = 0; i < levels.length; i += 1) {
      const level = levels[i]!;
      path = i === 0 ? level : `${path}/${level}`;
      let child = node.children.get(level);
      if (!child) {
        child = newNode(level, path, i);
        node.children.set(level, child);
        node.sorted = null;
      }
      node = child;
    }
    node.own = topicNode;
    this.byTopic.set(topicNode.topic, node);
  }

  private flatten(): TreeRow[] {
    const rows: TreeRow[] = [];
    const filter = this.filter;
    const walk = (node: TreeNode): void => {
      node.sorted ??= [...node.children.values()].sort(byName);
      for (const child of node.sorted) {
        if (filter && !matches(child, filter)) continue;
        const hasChildren = child.children.size > 0;
        // A filter opens the way to every match.
        const expanded = hasChildren && (filter !== '' || this.expanded.has(child.path));
        rows.push({ node: child, expanded, hasChildren });
        if (expanded) walk(child);
      }
    };
    walk(this.root);
    return rows;
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Whether the node's path, or one below it, contains `filter` (lower case). */
function matches(node: TreeNode, filter: string): boolean {
  if (node.path.toLowerCase().includes(filter)) return true;
  for (const child of node.children.values()) if (matches(child, filter)) return true;
  return false;
}

/** Recomputes the subtree sums below and at `node`. */
function sum(node: TreeNode): void {
  let count = node.own?.count ?? 0;
  let rate = node.own?.rate ?? 0;
  let lastAt = node.own?.lastAt ?? null;
  let topics = node.own ? 1 : 0;
  for (const child of node.children.values()) {
    sum(child);
    count += child.count;
    rate += child.rate;
    topics += child.topics;
    if (child.lastAt !== null && (lastAt === null || child.lastAt > lastAt)) lastAt = child.lastAt;
  }
  node.count = count;
  node.rate = Math.round(rate * 10) / 10;
  node.lastAt = lastAt;
  node.topics = topics;
}

const rateFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/**
 * A topic's rate in the tree and its detail (trial finding 10: 0.3/s read as nothing): one
 * decimal below 10/s, "<0.1/s" for a trickle, whole numbers above; empty for no traffic.
 */
export function topicRateText(perSecond: number): string {
  if (!(perSecond > 0)) return '';
  if (perSecond < 0.05) return '<0.1/s';
  return `${perSecond < 10 ? rateFormat.format(perSecond) : Math.round(perSecond).toLocaleString('en-US')}/s`;
}

/**
 * A row's Subs column (trial finding 12: "—" on branches, "0" on leaves): a level nothing was
 * published on exactly is no topic and shows nothing; "—" only where the broker does not tell.
 */
export function topicSubsText(own: { subscribers: number | null } | null): string {
  if (own === null) return '';
  return own.subscribers === null ? '—' : own.subscribers.toLocaleString('en-US');
}
