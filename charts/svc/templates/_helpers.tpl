{{/* Base name of every object: the release name, cut to leave room for suffixes. */}}
{{- define "svc.fullname" -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc.injectorName" -}}
{{- printf "%s-injector" (include "svc.fullname" .) -}}
{{- end -}}

{{/* Labels of every object but the instance label, which the injector selector already carries. */}}
{{- define "svc.commonLabels" -}}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "svc.labels" -}}
{{ include "svc.commonLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "svc.injectorSelector" -}}
app.kubernetes.io/name: svc-injector
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The registry prefix of both images ("" keeps the repositories as written). */}}
{{- define "svc.registryPrefix" -}}
{{- with .Values.imageRegistry }}{{ trimSuffix "/" . }}/{{ end -}}
{{- end -}}

{{- define "svc.injectorImage" -}}
{{- printf "%s%s:%s" (include "svc.registryPrefix" .) .Values.injector.image.repository (default .Chart.AppVersion .Values.injector.image.tag) -}}
{{- end -}}

{{- define "svc.sidecarImage" -}}
{{- printf "%s%s:%s" (include "svc.registryPrefix" .) .Values.sidecar.image.repository (default .Chart.AppVersion .Values.sidecar.image.tag) -}}
{{- end -}}
