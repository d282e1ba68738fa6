/**
 * Prometheus metric names exposed on `GET /api/metrics`.
 *
 * Source: `spec/protocol-admin.md` §10.4. Names are the reference's, so existing
 * dashboards and alerts keep working.
 */
export const MetricName = {
  CONNECTIONS_TOTAL: 'tyo_mq_connections_total',
  CONNECTIONS_CURRENT: 'tyo_mq_connections_current',
  MESSAGES_PRODUCED_TOTAL: 'tyo_mq_messages_produced_total',
  MESSAGES_DELIVERED_TOTAL: 'tyo_mq_messages_delivered_total',
  MESSAGES_QUEUED_TOTAL: 'tyo_mq_messages_queued_total',
  MESSAGES_DLQ_TOTAL: 'tyo_mq_messages_dlq_total',
  ACK_TIMEOUT_TOTAL: 'tyo_mq_ack_timeout_total',
  RATE_LIMITED_TOTAL: 'tyo_mq_rate_limited_total',
  SSE_CONNECTIONS_TOTAL: 'tyo_mq_sse_connections_total',
  /** Switchboard: copies held per realm now (a gauge, unlike the queued counter). */
  QUEUE_DEPTH: 'tyo_mq_queue_depth',
  /** Switchboard: copies held per durable queue `(realm, key, consumer_id)` now. */
  SUBSCRIPTION_QUEUE_DEPTH: 'tyo_mq_subscription_queue_depth',
  /** Non-empty durable queues held now (the per-queue gauge shows at most the deepest N). */
  SUBSCRIPTION_QUEUES: 'tyo_mq_subscription_queues',
  /** Switchboard: copies refused by a queue cap, by `cap` (`realm` or `consumer`). */
  QUEUE_REFUSED_TOTAL: 'tyo_mq_queue_refused_total',
  /** Switchboard: durable copies lost to a failed store write (Note 7-D), by `realm`. */
  ENQUEUE_FAILED_TOTAL: 'tyo_mq_enqueue_failed_total',
  /** Switchboard extension: inbound events refused for carrying binary attachments (§1.2). */
  BINARY_REFUSED_TOTAL: 'tyo_mq_binary_refused_total',
  /** Switchboard: inputs refused, by `reason` (oversize_frame, malformed, rate_limited…). */
  REJECTED_INPUTS_TOTAL: 'tyo_mq_rejected_inputs_total',
  /** Switchboard: plain copies not sent to a socket over its write-buffer cap, by realm. */
  SLOW_CONSUMER_DROPS_TOTAL: 'tyo_mq_slow_consumer_drops_total',
  /** Switchboard: seconds from a PRODUCE accepted to a copy emitted to a consumer (histogram). */
  PUBLISH_DELIVER_SECONDS: 'tyo_mq_publish_deliver_seconds',
  /** Switchboard: seconds from a reliable copy sent to its ACK received (histogram). */
  ACK_LATENCY_SECONDS: 'tyo_mq_ack_latency_seconds',
  /** Switchboard: seconds one write batch of the SQLite store takes to commit (histogram). */
  STORAGE_COMMIT_SECONDS: 'tyo_mq_storage_commit_seconds',
  /** Switchboard: Engine.IO clients connected now, by `transport` (websocket, polling). */
  CONNECTIONS_BY_TRANSPORT: 'tyo_mq_connections_by_transport',
  /** Switchboard: MQTT wills refused when published, by `reason` (reserved_topic, role, …). */
  MQTT_WILLS_REFUSED_TOTAL: 'tyo_mq_mqtt_wills_refused_total',
  /** Switchboard: MQTT packets not sent, over their client's Maximum Packet Size, by `cmd`. */
  MQTT_OVERSIZE_DISCARDED_TOTAL: 'tyo_mq_mqtt_oversize_discarded_total',
  /** Switchboard: dead-lettered entries held now, per realm (gauge). */
  DLQ_DEPTH: 'tyo_mq_dlq_depth',
  /**
   * Switchboard: 1 while the store refuses new durable copies, by `reason` (`low_free_space`,
   * `store_full`; both always present). SQLite stores only.
   */
  STORE_REFUSING_WRITES: 'tyo_mq_store_refusing_writes',
  /** Switchboard: bytes free on the store's filesystem, and its reserve (`kind`: free, reserve). */
  STORE_FREE_BYTES: 'tyo_mq_store_free_bytes',
  /**
   * Switchboard: message-store writes that failed, by `op` (enqueue, ack, dead_letter…) and
   * `reason` (refused, store_full, error); see `broker/storage/store-write-failures.ts`.
   */
  STORE_WRITE_FAILURES_TOTAL: 'tyo_mq_store_write_failures_total',
  /** Switchboard: 1 while this cluster node's Redis links are up, 0 otherwise (gauge). */
  CLUSTER_REDIS_UP: 'tyo_mq_cluster_redis_up',
  /** Switchboard: messages this node relayed to its peers, by `outcome` (sent, failed). */
  CLUSTER_RELAYED_TOTAL: 'tyo_mq_cluster_relayed_total',
  /** Switchboard: relayed messages received from peers, by `outcome` (routed, invalid). */
  CLUSTER_RECEIVED_TOTAL: 'tyo_mq_cluster_received_total',
  /** Switchboard: cluster nodes seen alive (heartbeat under `<prefix>:nodes`), this one included. */
  CLUSTER_NODES: 'tyo_mq_cluster_nodes',
  /**
   * Switchboard: messages peers put in this node's inbox that were trimmed (retention passed)
   * before this node read them: lost for its clients (`relay: "streams"`).
   */
  CLUSTER_RELAY_MISSED_TOTAL: 'tyo_mq_cluster_relay_missed_total',
  /** Switchboard: entries in this node's inbox not read yet (gauge, at the last check). */
  CLUSTER_RELAY_BACKLOG: 'tyo_mq_cluster_relay_backlog',
  /** Switchboard: 1 once the Redis store fell back at start-up, else 0 (Note 7-A; gauge). */
  STORAGE_FALLBACK: 'tyo_mq_storage_fallback',
  /** Switchboard: 1 while an alarm is raised, by `alarm` (every id always present; issue 27). */
  ALARM_ACTIVE: 'tyo_mq_alarm_active',
  /** Switchboard: bytes of each store file on disk, by `file` (messages, messages-wal, auth…). */
  STORE_FILE_BYTES: 'tyo_mq_store_file_bytes',
  /** Switchboard: event-loop delay p99 of the last 30–60 s, seconds (gauge). */
  EVENT_LOOP_DELAY_P99: 'tyo_mq_event_loop_delay_p99_seconds',
  /** Switchboard: age of the oldest ready durable copy, seconds (gauge; 0 when none). */
  QUEUE_OLDEST_READY_AGE: 'tyo_mq_queue_oldest_ready_age_seconds',
  /** Push wake attempts (§6.6), by `transport` and `outcome` (ok, gone, transient, unsafe, auth, error). */
  PUSH_WAKES_TOTAL: 'tyo_mq_push_wakes_total',
  /** Switchboard (Note 6-E): push wake retries, by `transport`. */
  PUSH_WAKE_RETRIES_TOTAL: 'tyo_mq_push_wake_retries_total',
  /** Push endpoints registered on this node (gauge; §6.4). */
  PUSH_REGISTRATIONS: 'tyo_mq_push_registrations',
} as const;
export type MetricNameValue = (typeof MetricName)[keyof typeof MetricName];

/**
 * Label value that client-controlled `event` labels fold into once a realm has more than
 * `maxEventLabels` distinct events (Note in §10.4: unbounded cardinality).
 */
export const OTHER_EVENT_LABEL = 'other';

/**
 * Label values of the one `tyo_mq_subscription_queue_depth` series that sums every queue past
 * the deepest `input_limits.max_queue_depth_series` (realm, key and consumer_id all `_other`).
 */
export const OTHER_QUEUE_LABEL = '_other';
