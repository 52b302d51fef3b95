import { t } from '../../i18n';
import { useEngine } from '../panel-context';
import { ApprovalSection } from './ApprovalSection';
import { BridgeSection } from './BridgeSection';
import { LanguageSection } from './LanguageSection';
import { McpSection } from './McpSection';
import { ModelSection } from './ModelSection';
import { ProvidersSection } from './ProvidersSection';
import { SecretsSection } from './SecretsSection';
import { SiteRulesSection } from './SiteRulesSection';
import { PrivateSitesSection } from './PrivateSitesSection';
import { SkillsSection } from './SkillsSection';

export function SettingsView() {
  const settings = useEngine((s) => s.settings);
  if (!settings) {
    return (
      <main class="settings-view">
        <p class="loading" role="status">
          {t('loadingSettings')}
        </p>
      </main>
    );
  }
  return (
    <main class="settings-view" aria-label={t('settingsTitle')}>
      <ProvidersSection />
      <ModelSection settings={settings} />
      <ApprovalSection mode={settings.approvalMode} />
      <SiteRulesSection rules={settings.siteRules} />
      <PrivateSitesSection sites={settings.privateSites ?? []} />
      <SecretsSection secrets={settings.siteSecrets ?? []} />
      <McpSection servers={settings.mcpServers} />
      <BridgeSection bridge={settings.mcpBridge} />
      <SkillsSection skills={settings.skills ?? []} />
      <LanguageSection locale={settings.locale} />
    </main>
  );
}
