/** The top bar's alarm chip: the selected broker's raised alarms, linking to Resources. */
import type { Alarm } from '../../../../shared/broker-resources';
import '../../styles/resources.css';

export function AlarmChip({ alarms }: { alarms: Alarm[] }) {
  if (alarms.length === 0) return null;
  const critical = alarms.some((a) => a.level === 'critical');
  const noun = alarms.length === 1 ? 'alarm' : 'alarms';
  return (
    <a
      href="#/resources"
      className={`alarm-chip${critical ? ' alarm-chip--critical' : ''}`}
      data-testid="alarm-chip"
      data-count={alarms.length}
      title={alarms.map((a) => a.message).join('\n')}
      aria-label={`${alarms.length} ${noun} raised: open Resources`}
    >
      <span aria-hidden="true">⚠</span> {alarms.length}
      <span className="alarm-chip__noun"> {noun}</span>
    </a>
  );
}
