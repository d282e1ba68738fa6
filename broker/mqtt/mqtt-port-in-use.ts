/** A taken MQTT port, said the way the CLI and the console report it (issue 14). */
import { PortInUseError } from '../../shared/port-in-use-error';

/**
 * A taken port as `SWB_ERR_PORT_IN_USE`, naming the MQTT port and how to change it (the CLI
 * exits with `CliExitCode.PORT_IN_USE`); other errors unchanged.
 */
export function portInUse(err: Error, port: number, which: 'tcp' | 'ws'): Error {
  if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') return err;
  const message =
    which === 'tcp'
      ? `MQTT port ${port} is already in use: set another with --mqtt-port <n> (or mqtt.port in the settings file; 0 = any free port)`
      : `MQTT WebSocket port ${port} is already in use: set another mqtt.ws_port in the settings file (0 = any free port)`;
  return new PortInUseError(which === 'tcp' ? 'mqtt' : 'mqtt-ws', port, message);
}
