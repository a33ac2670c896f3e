import { graphql } from '../gql';

// Typed operations of the provider's Overview; `npm run codegen` turns each
// into a TypedDocumentNode in src/gql/. The query and the subscription select
// the same MachineFields: the page loads once, then every event replaces a
// machine whole.

export const GpuTelemetryFieldsFragment = graphql(`
  fragment GpuTelemetryFields on GpuTelemetry {
    at
    utilizationPct
    memoryUsedBytes
    temperatureC
    powerDrawW
    smClockMHz
    throttleReasons
    eccCorrected
    eccUncorrected
    recentUtilizationPct
  }
`);

export const MachineFieldsFragment = graphql(`
  fragment MachineFields on Machine {
    id
    machineId
    heartbeatIntervalSeconds
    hostname
    status
    offlineReason
    statusChangedAt
    lastHeartbeatAt
    agentVersion
    driverVersion
    cudaVersion
    simulated
    cpuModel
    cpuCores
    ramBytes
    diskBytes
    diskFreeBytes
    registeredAt
    gpus {
      id
      uuid
      index
      name
      model {
        key
        name
      }
      vramBytes
      pciBusId
      powerLimitW
      simulated
      listing
      rented
      telemetry {
        ...GpuTelemetryFields
      }
    }
  }
`);

export const ProviderFleetQuery = graphql(`
  query ProviderFleet {
    myProvider {
      id
      name
      tier
      machines {
        ...MachineFields
      }
    }
  }
`);

export const MachineStatusChangedSubscription = graphql(`
  subscription MachineStatusChanged {
    machineStatusChanged {
      kind
      machine {
        ...MachineFields
      }
    }
  }
`);
