import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import BackupSection from './BackupSection.vue'
import { mountInBody, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { useProjectsStore } from '../../stores/projects'
import { useConversationsStore } from '../../stores/conversations'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  resetDom()
  vi.restoreAllMocks()
})

async function backupOf(): Promise<string> {
  const p = await env.fake.createProject({ name: 'Thesis' })
  env.fake.addConversation({ id: 'a', title: 'Chapter 1', project_id: p.id })
  env.fake.addConversation({ id: 'b', title: 'Loose' })
  return (await env.fake.exportBackup()).content
}

describe('Settings → Data: the backup', () => {
  it('"Export everything" downloads the backup in a browser', async () => {
    await env.fake.createProject({ name: 'Thesis' })
    const clicked: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download)
    })
    URL.createObjectURL ??= () => 'blob:x'
    URL.revokeObjectURL ??= () => {}
    const w = await mountInBody(BackupSection, env)
    await w.find('[data-testid="backup-export"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('exportBackup')).toHaveLength(1)
    expect(env.fake.callsOf('saveFile')[0]![1]).toBe('backup')
    expect(clicked).toEqual(['parley-backup.json'])
  })

  it('"Export everything" in the desktop app saves through its dialog and says where', async () => {
    env.fake.nativeFileDialogs = true
    const w = await mountInBody(BackupSection, env)
    await w.find('[data-testid="backup-export"]').trigger('click')
    await settle()
    expect(w.find('[data-testid="backup-saved"]').text()).toBe('Saved to /home/user/Documents/parley-backup.json')
    expect(w.find('[role="status"]').exists()).toBe(true)
  })

  it('"Import" in a browser reads the chosen file and says what it added, then that a second import added nothing', async () => {
    const data = await backupOf()
    env = setupEnv() // a fresh Parley
    const w = await mountInBody(BackupSection, env)
    const input = w.find('[data-testid="backup-file"]')
    expect(input.attributes('aria-label')).toBe('Backup file to import (JSON exported from Parley)')
    const clickInput = vi.spyOn(input.element as HTMLInputElement, 'click')
    await w.find('[data-testid="backup-import"]').trigger('click')
    expect(clickInput).toHaveBeenCalled()

    const choose = async () => {
      Object.defineProperty(input.element, 'files', { value: [new File([data], 'parley-backup.json', { type: 'application/json' })], configurable: true })
      await input.trigger('change')
      await settle()
    }
    await choose()
    expect(env.fake.callsOf('importBackup')).toEqual([[{ data }]])
    expect(w.find('[data-testid="backup-added"]').text()).toBe('Added: 1 project and 2 conversations.')
    expect(w.find('[data-testid="backup-skipped"]').exists()).toBe(false)
    expect(useProjectsStore().items.map((p) => p.name)).toEqual(['Thesis'])
    expect(useConversationsStore().items.map((c) => c.title).sort()).toEqual(['Chapter 1', 'Loose'])

    await choose()
    expect(w.find('[data-testid="backup-added"]').text()).toBe('Added: nothing.')
    expect(w.find('[data-testid="backup-skipped"]').text()).toBe('Already here, left as they were: 1 project and 2 conversations.')
  })

  it('"Import" in the desktop app opens its dialog; a file that is not a backup says why', async () => {
    env.fake.nativeFileDialogs = true
    env.fake.nextBackupFile = '{"format":"parley.conversation"}'
    const w = await mountInBody(BackupSection, env)
    expect(w.find('[data-testid="backup-file"]').exists()).toBe(false)
    await w.find('[data-testid="backup-import"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('chooseBackupFile')).toHaveLength(1)
    expect(w.find('[data-testid="backup-error"]').text()).toBe("Couldn't import the backup: This is not a Parley backup.")
  })
})
